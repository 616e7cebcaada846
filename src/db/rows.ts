/**
 * Many rows of a flat selection, mapped as drizzle maps them. Drizzle's `mapResultRow` finds each
 * field's decoder (a column's own mapping: booleans, JSON, timestamps; a `sql` field's `mapWith`) for
 * every field of every row, through `is()` checks that walk the class chain: a fifth of a 5 000-variable
 * `GET /variables` (bench/RESULTS.md, "Hot paths, session 11"). Here the decoders are found once per
 * selection, and a row is its values in selection order (a drizzle query's `.values()`), decoded the
 * same way: null stays null, anything else goes through the field's decoder.
 *
 * Only for flat selections (a field per key, no nested objects, no joined tables whose all-null
 * columns drizzle would turn into a null object).
 */
import { Column, is, SQL } from 'drizzle-orm';

type Decoder = { mapFromDriverValue(value: unknown): unknown };
interface Mapper {
  keys: string[];
  decoders: Decoder[];
}

const mappers = new WeakMap<object, Mapper>();

function decoderOf(field: unknown): Decoder {
  if (is(field, Column)) return field as unknown as Decoder;
  // A `sql` field's decoder is its `mapWith` (drizzle keeps it unexported from the type).
  if (is(field, SQL)) return (field as unknown as { decoder: Decoder }).decoder;
  if (is(field, SQL.Aliased)) return (field.sql as unknown as { decoder: Decoder }).decoder;
  throw new Error('mapRows takes a flat selection of columns and sql fields');
}

function mapperOf(selection: Record<string, unknown>): Mapper {
  let mapper = mappers.get(selection);
  if (!mapper) {
    const keys = Object.keys(selection);
    mapper = { keys, decoders: keys.map((key) => decoderOf(selection[key])) };
    mappers.set(selection, mapper);
  }
  return mapper;
}

/** `rows` (a query on `selection`, by `.values()`) as the objects its `.all()` gives. */
export function mapRows<T>(selection: Record<string, unknown>, rows: unknown[][]): T[] {
  const { keys, decoders } = mapperOf(selection);
  const n = keys.length;
  const out: T[] = new Array(rows.length);
  for (let r = 0; r < rows.length; r++) {
    const row = rows[r] as unknown[];
    const item: Record<string, unknown> = {};
    for (let i = 0; i < n; i++) {
      const raw = row[i];
      item[keys[i] as string] = raw === null ? null : (decoders[i] as Decoder).mapFromDriverValue(raw);
    }
    out[r] = item as T;
  }
  return out;
}
