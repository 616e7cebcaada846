/**
 * Pieces of the OpenAPI-driven fuzz (tests/fuzz.test.ts), drawn by a seeded random source: a valid instance
 * of a JSON schema (to reach the rules behind the schema), and the hostile values each field gets.
 * Everything is deterministic for a seed, so a failure reproduces with `FUZZ_SEED=<n>`.
 */

export interface JsonSchema {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema | false;
  prefixItems?: JsonSchema[];
  anyOf?: JsonSchema[];
  const?: unknown;
  enum?: unknown[];
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  format?: string;
  minItems?: number;
}

export function pick<T>(rng: () => number, list: readonly T[]): T {
  const item = list[Math.floor(rng() * list.length)];
  if (item === undefined) throw new Error('pick from an empty list');
  return item;
}

/** Field names whose valid value is a known key of the seeded venue rather than free text. */
export interface Known {
  subsystemExternalId: string;
  subsystemId: number;
}

/** A value the schema accepts (best effort: patterns are met for the shapes this API uses). */
export function validInstance(schema: JsonSchema, known: Known, name = '', depth = 0): unknown {
  if (schema.const !== undefined) return schema.const;
  if (schema.enum && schema.enum.length > 0) return schema.enum[0];
  if (schema.anyOf && schema.anyOf.length > 0) {
    const real = schema.anyOf.find((s) => s.type !== 'null') ?? schema.anyOf[0];
    return real ? validInstance(real, known, name, depth) : null;
  }
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  switch (type) {
    case 'object': {
      const out: Record<string, unknown> = {};
      if (depth > 4) return out;
      for (const key of schema.required ?? []) {
        const inner = schema.properties?.[key];
        if (inner) out[key] = validInstance(inner, known, key, depth + 1);
      }
      return out;
    }
    case 'array':
      if (schema.prefixItems) return schema.prefixItems.map((s) => validInstance(s, known, name, depth + 1));
      return schema.items && (schema.minItems ?? 0) > 0 ? [validInstance(schema.items, known, name, depth + 1)] : [];
    case 'integer':
    case 'number':
      if (name === 'subsystemId') return known.subsystemId;
      return Math.max(schema.minimum ?? 1, Math.min(schema.maximum ?? 1, 1));
    case 'boolean':
      return true;
    case 'string': {
      if (name === 'subsystemExternalId') return known.subsystemExternalId;
      if (schema.format === 'date-time') return '2026-01-15T13:00:00.000Z';
      const text = `fz${name.replace(/[^A-Za-z0-9]/g, '').slice(0, 20)}1`;
      return text.slice(0, schema.maxLength ?? text.length).padEnd(schema.minLength ?? 0, 'x');
    }
    default:
      return null;
  }
}

/** Values of the wrong type for a field of this schema, and null. */
export function wrongTyped(schema: JsonSchema): unknown[] {
  const types = new Set(
    (schema.anyOf ?? [schema]).flatMap((s) => (Array.isArray(s.type) ? s.type : s.type ? [s.type] : [])),
  );
  const all: Array<[string, unknown]> = [
    ['string', 'str'],
    ['integer', 12345],
    ['number', 1.5],
    ['boolean', true],
    ['object', { nested: { a: 1 } }],
    ['array', [1, 'two', null]],
  ];
  const out = all
    .filter(([type]) => !types.has(type) && !(type === 'integer' && types.has('number')))
    .map(([, v]) => v);
  if (!types.has('null')) out.push(null);
  return out;
}

/** Hostile values any field may meet: huge and odd text, unsafe numbers, deep nesting. */
export function hostileValues(): Array<[string, unknown]> {
  return [
    ['huge string', 'x'.repeat(300_000)],
    ['lone surrogate', 'a\ud800b'],
    ['control characters', 'a\u0000b\u001bc'],
    ['right-to-left override', '\u202eevil'],
    ['emoji', '🎭'.repeat(50)],
    ['negative', -1],
    ['zero', 0],
    ['fraction', 0.5],
    ['past 2^53', 2 ** 60],
    ['1e308', 1e308],
    ['deep object', deepObject(200)],
    ['empty string', ''],
    ['whitespace', '   '],
  ];
}

export function deepObject(levels: number): unknown {
  let value: unknown = 'leaf';
  for (let i = 0; i < levels; i++) value = { a: value };
  return value;
}

/** JSON text nested `levels` deep, built as text (a value this deep cannot be stringified recursively). */
export function deepJsonText(levels: number): string {
  return `${'{"a":'.repeat(levels)}1${'}'.repeat(levels)}`;
}

export const BAD_SEGMENTS = [
  '%ZZ',
  '%FF',
  '%E0%A4%A',
  '%',
  '..',
  '%2e%2e',
  '%2F',
  'a%00b',
  '0',
  '-1',
  '1.5',
  '99999999999999999999',
  '9007199254740993',
  'x'.repeat(5000),
  '%20',
  '%C0%AF',
];

export const ODD_HOSTS = ['x', 'pms', 'pms:80', 'av:8080', '[::1]:8080', '10.0.0.1', 'a.b.c.d.e.f', 'xn--bcher-kva'];

export const ODD_QUERIES = [
  'limit=-1',
  'limit=abc',
  'limit=1e309',
  'limit=0',
  'limit=10001',
  'offset=99999999999999999999',
  'offset=-5',
  'fuzzy=%ZZ',
  `fuzzy=${'y'.repeat(20_000)}`,
  'limit=1&limit=2',
  'metadata[x]=1',
  'metadata[]=1',
  'from=not-a-date&to=2026-13-45',
  '_id=%00',
];
