/** Tables that must stay bounded however many keys a flood, or a large venue, brings. */

/**
 * Room in a full bounded table for one more key: drops the idle keys (forgetting them changes
 * nothing), then, if the table is still full, the oldest quarter (Map order: first set first). The
 * flood limiter and the sign-in throttle share it (a key is an address or a caller: forgiven early,
 * never refused wrongly), and so do the value path's row cache (modules/variables/repo.ts) and the
 * credential cache (modules/auth/state.ts), without an idle test: what they let go is read again.
 */
export function makeRoom<K, V>(table: Map<K, V>, maxKeys: number, idle?: (value: V) => boolean): void {
  if (table.size < maxKeys) return;
  if (idle) for (const [key, value] of table) if (idle(value)) table.delete(key);
  if (table.size < maxKeys) return;
  let drop = Math.ceil(maxKeys / 4);
  for (const key of table.keys()) {
    table.delete(key);
    if (--drop === 0) break;
  }
}
