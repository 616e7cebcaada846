/** Field schemas shared by every resource (§0.2). */
import { t } from 'elysia';

const NO_CONTROL = '^[^\\u0000-\\u001f\\u007f]*$';

export const DisplayName = t.String({ minLength: 1, maxLength: 200, pattern: NO_CONTROL });
export const Description = t.String({ maxLength: 2000 });
export const ExternalRef = t.String({ minLength: 1, maxLength: 256, pattern: '^[^\\u0000-\\u001f\\u007f/?#]+$' });
export const ExternalId = t.String({ minLength: 1, maxLength: 128, pattern: '^(?![0-9]+$)[A-Za-z0-9._:@-]+$' });
export const IdList = t.Array(t.Integer({ minimum: 1 }), { maxItems: 10000 });
export const Metadata = t.Record(t.String({ minLength: 1, maxLength: 64 }), t.Unknown());
export const Email = t.String({ maxLength: 254, pattern: '^[^\\s@]+@[^\\s@]+$' });

/** `{id}` path segment: digits for `_id`, or an external key where the resource has one. */
export const IdParam = t.Object({ id: t.String({ minLength: 1, maxLength: 128 }) });

/** The `_id` form of a path segment, or null when it is not all digits. */
export function numericId(raw: string): number | null {
  if (!/^[0-9]{1,15}$/.test(raw)) return null;
  const n = Number(raw);
  return n > 0 ? n : null;
}

/** Trimmed displayName; throws the validation error when nothing is left. */
export function cleanText(value: string): string {
  return value.trim();
}

/** Drops duplicates, keeping first-seen order. */
export function unique<T>(values: readonly T[]): T[] {
  return [...new Set(values)];
}

/** Metadata rules of §0.2 beyond the schema: at most 16 KiB serialized and depth at most 5. */
export function metadataProblem(value: unknown): string | null {
  if (JSON.stringify(value).length > 16 * 1024) return 'must be at most 16 KiB';
  const depth = (v: unknown): number =>
    v !== null && typeof v === 'object' ? 1 + Math.max(0, ...Object.values(v).map(depth)) : 0;
  return depth(value) > 5 ? 'must be nested at most 5 levels deep' : null;
}
