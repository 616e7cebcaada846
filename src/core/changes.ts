/**
 * What a write changed: events and audit entries list the changed field names (§0.4), and a record
 * sent back whole must name only what really changed. Values are compared as JSON, so arrays and
 * objects count by content and a value read back from its row compares equal.
 */

/** Whether a stored value and a new one are the same, compared as JSON. */
export function sameValue(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/**
 * The keys whose new value differs from the row's, in the order of `keys` (default: `next`'s own).
 * A key `next` leaves undefined is absent and keeps its value; with no row yet, every set key counts.
 */
export function changedFields<T extends object, K extends keyof T & string = keyof T & string>(
  row: T | undefined,
  next: Partial<T>,
  keys: readonly K[] = Object.keys(next) as K[],
): K[] {
  return keys.filter((key) => next[key] !== undefined && (row === undefined || !sameValue(next[key], row[key])));
}
