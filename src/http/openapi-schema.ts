/**
 * A route's TypeBox schema as OpenAPI 3.1 wants it: JSON Schema 2020-12. TypeBox writes draft-07
 * (a tuple is `items: [...]` plus `additionalItems`) and Elysia adds its own keys (the custom `error`
 * message, `anyOf [string-with-format, real type]` coercion branches); neither is 2020-12. The walk
 * knows which keys hold subschemas and which hold names (`properties`) or data (`const`, `default`),
 * so a property called `error` stays a property and a default value is never rewritten.
 */

import { QUERY_DATE_TIME } from './instant';

export type JsonSchema = Record<string, unknown>;

export const isObject = (value: unknown): value is JsonSchema =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

/**
 * Formats of our own that the document names by the standard one: a query time whose `+` may arrive
 * as a space (http/instant.ts) is a `date-time` to every client.
 */
const DOCUMENT_FORMATS: Record<string, string> = { [QUERY_DATE_TIME]: 'date-time' };

/** Formats Elysia adds to a `type: string` branch so a query or path string coerces to another type. */
const COERCION_FORMATS = new Set(['integer', 'numeric', 'boolean', 'ObjectString', 'ArrayString']);

/** Keywords whose value is one subschema. */
const ONE_SCHEMA = new Set([
  'additionalProperties',
  'contains',
  'not',
  'if',
  'then',
  'else',
  'propertyNames',
  'unevaluatedProperties',
  'unevaluatedItems',
]);
/** Keywords whose value is a list of subschemas. */
const SCHEMA_LISTS = new Set(['anyOf', 'oneOf', 'allOf']);
/** Keywords whose value maps names to subschemas. */
const SCHEMA_MAPS = new Set(['properties', 'patternProperties', '$defs', 'dependentSchemas']);

/** One schema (a boolean schema is kept as it is). */
export function toSchema2020(value: unknown): unknown {
  if (!isObject(value)) return value;
  const out: JsonSchema = {};
  for (const [key, inner] of Object.entries(value)) {
    if (key === 'error') {
      // Elysia's custom validation message is not JSON Schema; it reads well as the description.
      if (typeof inner === 'string' && value.description === undefined) out.description = inner;
    } else if (key === 'items' && Array.isArray(inner)) {
      // A draft-07 tuple: the positions become `prefixItems`, and what follows them `items`.
      out.prefixItems = inner.map(toSchema2020);
      const rest = value.additionalItems;
      if (rest !== undefined && rest !== true) out.items = toSchema2020(rest);
    } else if (key === 'format' && typeof inner === 'string' && DOCUMENT_FORMATS[inner] !== undefined) {
      out[key] = DOCUMENT_FORMATS[inner];
    } else if (key === 'additionalItems') {
      // Only meaningful beside a tuple `items`, handled there.
    } else if (SCHEMA_MAPS.has(key) && isObject(inner)) {
      out[key] = mapValues(inner);
    } else if (SCHEMA_LISTS.has(key) && Array.isArray(inner)) {
      out[key] = inner.map(toSchema2020);
    } else if ((ONE_SCHEMA.has(key) || key === 'items') && isObject(inner)) {
      out[key] = toSchema2020(inner);
    } else {
      out[key] = inner;
    }
  }
  return collapseAnyOf(out);
}

function mapValues(map: JsonSchema): JsonSchema {
  return Object.fromEntries(Object.entries(map).map(([name, schema]) => [name, toSchema2020(schema)]));
}

/**
 * Elysia widens numeric/boolean fields to `anyOf [string-with-format, real type]`; the wire type is the
 * real one. A union that repeats a branch (`t.Union([t.Boolean(), t.BooleanString()])` once unwrapped)
 * says it once; a union left with one branch is that branch.
 */
function collapseAnyOf(schema: JsonSchema): JsonSchema {
  const anyOf = schema.anyOf;
  if (!Array.isArray(anyOf)) return schema;
  let branches = anyOf;
  if (anyOf.length === 2) {
    const real = anyOf.filter(
      (branch) => !(isObject(branch) && branch.type === 'string' && COERCION_FORMATS.has(String(branch.format))),
    );
    if (real.length === 1) branches = real;
  }
  const seen = new Set<string>();
  branches = branches.filter((branch) => {
    const key = canonical(branch);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
  const { anyOf: _replaced, ...rest } = schema;
  const only = branches[0];
  if (branches.length === 1 && isObject(only)) return { ...rest, ...only };
  return { ...rest, anyOf: branches };
}

/** JSON with object keys sorted, so two equal schemas written in another key order compare equal. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (!isObject(value)) return JSON.stringify(value);
  const keys = Object.keys(value).sort();
  return `{${keys.map((k) => `${JSON.stringify(k)}:${canonical(value[k])}`).join(',')}}`;
}

/** TypeBox's symbol keys and functions dropped, then {@link toSchema2020}; undefined when not a schema. */
export function plainSchema(schema: unknown): JsonSchema | undefined {
  if (!isObject(schema)) return undefined;
  const cleaned = toSchema2020(JSON.parse(JSON.stringify(schema)));
  return isObject(cleaned) ? cleaned : undefined;
}

/** A route's own OpenAPI responses (`detail.responses`): the schemas in their content and headers. */
export function responsesTo2020(responses: JsonSchema): JsonSchema {
  const out: JsonSchema = {};
  for (const [status, response] of Object.entries(responses)) {
    if (!isObject(response)) {
      out[status] = response;
      continue;
    }
    const copy: JsonSchema = { ...response };
    if (isObject(response.content)) copy.content = withSchemas(response.content);
    if (isObject(response.headers)) copy.headers = withSchemas(response.headers);
    out[status] = copy;
  }
  return out;
}

/** A map of media types or headers, each of which may carry a `schema`. */
function withSchemas(map: JsonSchema): JsonSchema {
  return Object.fromEntries(
    Object.entries(map).map(([name, entry]) => [
      name,
      isObject(entry) && isObject(entry.schema) ? { ...entry, schema: plainSchema(entry.schema) } : entry,
    ]),
  );
}
