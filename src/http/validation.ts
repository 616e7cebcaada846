/**
 * Turns a schema failure into the `detail` list of the error body: one entry per field, a message
 * written from the schema (never from the submitted value, which must not be echoed).
 *
 * Integers: JSON numbers are doubles, exact only within ±(2^53−1). The body check gives every integer
 * field those bounds when it has none of its own (body.ts); they are left out of messages, and an
 * integer past them is told so (the message the raw-text check in json-integers.ts uses too).
 */
import { ValueErrorType } from '@sinclair/typebox/errors';
import { characterStringFailure } from './characters';
import type { ErrorDetail } from './errors';

interface SchemaLike {
  type?: string | string[];
  format?: string;
  anyOf?: SchemaLike[];
  const?: unknown;
  enum?: unknown[];
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
  minLength?: number;
  maxLength?: number;
  maxItems?: number;
  minItems?: number;
  maxProperties?: number;
  error?: unknown;
}

/** The bound of an exactly representable integer; bounds at ± this are implicit, never shown. */
export const SAFE_INTEGER_BOUND = Number.MAX_SAFE_INTEGER;

/** The format the body check puts on Elysia's integer-as-text branch in place of `integer` (body.ts). */
export const SAFE_INTEGER_FORMAT = 'pms-safe-integer';

export const UNSAFE_INTEGER = `is an integer beyond ±${SAFE_INTEGER_BOUND}; send larger numbers as strings`;

export interface SchemaError {
  path: string;
  type: number;
  schema: unknown;
  /** Only looked at to tell a missing field; never copied into a message. */
  value?: unknown;
  /** A union's failures per branch (TypeBox), in the order of its `anyOf`. */
  errors?: Iterable<SchemaError>[];
}

/** Elysia wraps numbers and booleans in a union with their string form so they may come as text. */
function isCoercionBranch(s: SchemaLike): boolean {
  const coercing = ['integer', SAFE_INTEGER_FORMAT, 'numeric', 'boolean'];
  // The body check names the text form of a bounded integer `pms-safe-integer:<bounds>` (body.ts).
  const format = s.format?.startsWith(`${SAFE_INTEGER_FORMAT}:`) ? SAFE_INTEGER_FORMAT : (s.format ?? '');
  return s.type === 'string' && coercing.includes(format);
}

const shown = (bound: number | undefined): number | undefined =>
  bound === undefined || Math.abs(bound) === SAFE_INTEGER_BOUND ? undefined : bound;

function range(s: SchemaLike): string {
  const lo = shown(s.exclusiveMinimum !== undefined ? s.exclusiveMinimum : s.minimum);
  const hi = shown(s.exclusiveMaximum !== undefined ? s.exclusiveMaximum : s.maximum);
  if (s.exclusiveMinimum !== undefined && hi === undefined) return ` greater than ${lo}`;
  if (lo !== undefined && hi !== undefined) return ` from ${lo} to ${hi}`;
  if (lo !== undefined) return ` of at least ${lo}`;
  if (hi !== undefined) return ` of at most ${hi}`;
  return '';
}

/** An integer past ±(2^53−1) that the field's own bounds (if any) would not have refused anyway. */
function onlyUnsafe(s: SchemaLike, raw: unknown): boolean {
  // Elysia takes an integer field as text too ("42"); such text is judged by its number.
  const value = typeof raw === 'string' && /^\s*-?[0-9]+\s*$/.test(raw) ? Number(raw) : raw;
  if (typeof value !== 'number' || !Number.isInteger(value) || Number.isSafeInteger(value)) return false;
  const own = value > 0 ? (s.exclusiveMaximum ?? s.maximum) : (s.exclusiveMinimum ?? s.minimum);
  return shown(own) === undefined;
}

/**
 * A count of an array's entries in a message. Not "items": a field may be called `items` (a block's),
 * and a message never spells its own field (errors.ts `invalid`).
 */
const entries = (n: number | undefined): string => (n === 1 ? '1 entry' : `${n} entries`);

function describe(s: SchemaLike, errorType: number, value: unknown): string {
  if (typeof s.error === 'string') return s.error;
  if (s.anyOf) {
    const real = s.anyOf.filter((b) => !isCoercionBranch(b));
    if (real.length > 0 && real.every((b) => b.const !== undefined)) {
      return `must be one of: ${real.map((b) => String(b.const)).join(', ')}`;
    }
    if (real.length === 1 && real[0]) return describe(real[0], errorType, value);
    // A nullable field (`T | null`) is described by its one other kind.
    const other = real.filter((b) => b.type !== 'null');
    if (real.length === 2 && other.length === 1 && other[0]) return `${describe(other[0], errorType, value)}, or null`;
    return 'has an unexpected type';
  }
  if (s.const !== undefined) return `must be ${JSON.stringify(s.const)}`;
  if (s.enum) return `must be one of: ${s.enum.map(String).join(', ')}`;
  switch (s.type) {
    case 'integer':
      if (onlyUnsafe(s, value)) return UNSAFE_INTEGER;
      if (s.exclusiveMinimum === 0 && shown(s.maximum) === undefined) return 'must be greater than 0';
      return `must be an integer${range(s)}`;
    case 'number':
      return `must be a number${range(s)}`;
    case 'boolean':
      return 'must be true or false';
    case 'string': {
      // A string counting characters fails as a whole (characters.ts): which rule it broke is asked again.
      const failed =
        errorType === ValueErrorType.Kind && typeof value === 'string'
          ? characterStringFailure(s as Record<string, unknown>, value)
          : null;
      if (errorType === ValueErrorType.StringPattern || failed === 'pattern')
        return 'contains characters that are not allowed';
      if (errorType === ValueErrorType.StringFormat || failed === 'format') return `must be a valid ${s.format}`;
      if (s.minLength !== undefined && s.maxLength !== undefined) {
        return `must be a string of ${s.minLength} to ${s.maxLength} characters`;
      }
      if (s.maxLength !== undefined) return `must be a string of at most ${s.maxLength} characters`;
      if (s.minLength !== undefined) return `must be a string of at least ${s.minLength} characters`;
      return 'must be a string';
    }
    case 'array':
      if (errorType === ValueErrorType.ArrayMaxItems) return `must have at most ${entries(s.maxItems)}`;
      if (errorType === ValueErrorType.ArrayMinItems) return `must have at least ${entries(s.minItems)}`;
      return 'must be an array';
    case 'object':
      if (errorType === ValueErrorType.ObjectMaxProperties) return `must have at most ${s.maxProperties} entries`;
      return 'must be an object';
    case 'null':
      return 'must be null';
    default:
      return 'is not valid';
  }
}

/**
 * A nullable object (`object or null`) sent as an object fails inside the object: its own fields'
 * failures say more, at their own paths (`/smtp/port`), than the union's "must be an object or null".
 */
function withinNullableObjects(errors: Iterable<SchemaError>): SchemaError[] {
  return [...errors].flatMap((e) => {
    const branches = (e.schema as SchemaLike | undefined)?.anyOf;
    const isObject = e.value !== null && typeof e.value === 'object' && !Array.isArray(e.value);
    if (e.type !== ValueErrorType.Union || !isObject || !branches || branches.length !== 2) return [e];
    const objectAt = branches.findIndex((b) => b.type === 'object');
    const inner = objectAt >= 0 && branches[1 - objectAt]?.type === 'null' ? e.errors?.[objectAt] : undefined;
    const expanded = inner ? withinNullableObjects(inner) : [];
    return expanded.length > 0 ? expanded : [e];
  });
}

/** One detail per path, the first failure winning (a missing field reports "is required"). */
export function schemaErrorDetails(errors: SchemaError[]): ErrorDetail[] {
  const out = new Map<string, string>();
  for (const e of withinNullableObjects(errors)) {
    const path = e.path || '/';
    if (out.has(path)) continue;
    const message =
      e.type === ValueErrorType.ObjectRequiredProperty || (e.value === undefined && path !== '/')
        ? 'is required'
        : describe((e.schema ?? {}) as SchemaLike, e.type, e.value);
    out.set(path, message);
  }
  return [...out].map(([path, message]) => ({ path, message }));
}
