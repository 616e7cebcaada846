/** Tables keyed by caller or address that must stay bounded however many keys a flood brings. */

/**
 * Room in a full bounded table (a key is an address or a caller): drops the idle keys (forgetting
 * them changes nothing), then, if a spray of keys keeps it full, the oldest quarter (forgiven early,
 * never refused wrongly). The flood limiter and the sign-in throttle share it.
 */
export function makeRoom<V>(table: Map<string, V>, maxKeys: number, idle: (value: V) => boolean): void {
  if (table.size < maxKeys) return;
  for (const [key, value] of table) if (idle(value)) table.delete(key);
  if (table.size < maxKeys) return;
  let drop = Math.ceil(maxKeys / 4);
  for (const key of table.keys()) {
    table.delete(key);
    if (--drop === 0) break;
  }
}
