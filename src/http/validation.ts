/**
 * Turns a schema failure into the `detail` list of the error body: one entry per field, a message
 * written from the schema (never from the submitted value, which must not be echoed).
 */
import { ValueErrorType } from '@sinclair/typebox/errors';
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
  error?: unknown;
}

export interface SchemaError {
  path: string;
  type: number;
  schema: unknown;
  /** Only looked at to tell a missing field; never copied into a message. */
  value?: unknown;
}

/** Elysia wraps numbers and booleans in a union with their string form so they may come as text. */
function isCoercionBranch(s: SchemaLike): boolean {
  return s.type === 'string' && (s.format === 'integer' || s.format === 'numeric' || s.format === 'boolean');
}

function range(s: SchemaLike): string {
  const lo = s.exclusiveMinimum !== undefined ? s.exclusiveMinimum : s.minimum;
  const hi = s.exclusiveMaximum !== undefined ? s.exclusiveMaximum : s.maximum;
  if (s.exclusiveMinimum !== undefined && hi === undefined) return ` greater than ${lo}`;
  if (lo !== undefined && hi !== undefined) return ` from ${lo} to ${hi}`;
  if (lo !== undefined) return ` of at least ${lo}`;
  if (hi !== undefined) return ` of at most ${hi}`;
  return '';
}

function describe(s: SchemaLike, errorType: number): string {
  if (typeof s.error === 'string') return s.error;
  if (s.anyOf) {
    const real = s.anyOf.filter((b) => !isCoercionBranch(b));
    if (real.length > 0 && real.every((b) => b.const !== undefined)) {
      return `must be one of: ${real.map((b) => String(b.const)).join(', ')}`;
    }
    if (real.length === 1 && real[0]) return describe(real[0], errorType);
    return 'has an unexpected type';
  }
  if (s.const !== undefined) return `must be ${JSON.stringify(s.const)}`;
  if (s.enum) return `must be one of: ${s.enum.map(String).join(', ')}`;
  switch (s.type) {
    case 'integer':
      if (s.exclusiveMinimum === 0 && s.maximum === undefined) return 'must be greater than 0';
      return `must be an integer${range(s)}`;
    case 'number':
      return `must be a number${range(s)}`;
    case 'boolean':
      return 'must be true or false';
    case 'string':
      if (errorType === ValueErrorType.StringPattern) return 'contains characters that are not allowed';
      if (errorType === ValueErrorType.StringFormat) return `must be a valid ${s.format}`;
      if (s.minLength !== undefined && s.maxLength !== undefined) {
        return `must be a string of ${s.minLength} to ${s.maxLength} characters`;
      }
      if (s.maxLength !== undefined) return `must be a string of at most ${s.maxLength} characters`;
      if (s.minLength !== undefined) return `must be a string of at least ${s.minLength} characters`;
      return 'must be a string';
    case 'array':
      if (errorType === ValueErrorType.ArrayMaxItems) return `must have at most ${s.maxItems} items`;
      if (errorType === ValueErrorType.ArrayMinItems) return `must have at least ${s.minItems} items`;
      return 'must be an array';
    case 'object':
      return 'must be an object';
    case 'null':
      return 'must be null';
    default:
      return 'is not valid';
  }
}

/** One detail per path, the first failure winning (a missing field reports "is required"). */
export function schemaErrorDetails(errors: SchemaError[]): ErrorDetail[] {
  const out = new Map<string, string>();
  for (const e of errors) {
    const path = e.path || '/';
    if (out.has(path)) continue;
    const message =
      e.type === ValueErrorType.ObjectRequiredProperty || (e.value === undefined && path !== '/')
        ? 'is required'
        : describe((e.schema ?? {}) as SchemaLike, e.type);
    out.set(path, message);
  }
  return [...out].map(([path, message]) => ({ path, message }));
}

export function fieldName(path: string): string {
  return path.split('/').filter(Boolean).join('.') || 'body';
}
