/**
 * The field rules of §6 a schema cannot say. A value fits its parameter's type: number (numeric,
 * within min/max), enum (one of `options`), boolean ("true"/"false"), color (`#RRGGBB`), object (a
 * cms-media object id: media objects are not part of this build, so no id names one and every
 * object value is refused), string (anything).
 */
import type { ParameterType } from '../../db/schema';
import { longerThan } from '../../http/characters';
import { invalid } from '../../http/errors';
import { jsonText } from '../../http/fields';
import { MAX_VALUE_LENGTH } from './model';

/** What a value is checked against. */
export interface ValueShape {
  type: ParameterType;
  min: number | null;
  max: number | null;
  options: readonly string[];
}

const NUMBER = /^-?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][-+]?[0-9]+)?$/;
const COLOR = /^#[0-9A-Fa-f]{6}$/;

/** Why `text` does not fit the shape, or null when it does. Never quotes the value. */
export function misfit(shape: ValueShape, text: string): string | null {
  switch (shape.type) {
    case 'string':
      return null;
    case 'number': {
      if (!NUMBER.test(text) || !Number.isFinite(Number(text))) return 'must be a number';
      const n = Number(text);
      if (shape.min !== null && n < shape.min) return `must be at least ${shape.min}`;
      if (shape.max !== null && n > shape.max) return `must be at most ${shape.max}`;
      return null;
    }
    case 'boolean':
      return text === 'true' || text === 'false' ? null : 'must be "true" or "false"';
    case 'enum':
      return shape.options.includes(text) ? null : 'must be one of the options';
    case 'color':
      return COLOR.test(text) ? null : 'must be a color written #RRGGBB';
    case 'object':
      return 'names an object that does not exist';
  }
}

/** Throws the validation error at `path` when the value does not fit. */
export function requireFit(shape: ValueShape, text: string, path: string): void {
  const problem = misfit(shape, text);
  if (problem) throw invalid(path, problem);
}

/**
 * Values travel as strings (C: Requests): a string as sent, a number or boolean (or other JSON) as
 * its JSON text (`jsonText`: a number past the largest double is 400). `null` is returned as null: the caller decides what clearing means.
 */
export function valueText(value: unknown, path: string): string | null {
  if (value === null) return null;
  if (value === undefined) throw invalid(path, 'is required');
  const text = typeof value === 'string' ? value : jsonText(value, path);
  if (longerThan(text, MAX_VALUE_LENGTH)) throw invalid(path, `must be at most ${MAX_VALUE_LENGTH} characters`);
  return text;
}

/** The effective definition after a write: min ≤ max, min/max/step only for numbers, options for enums. */
export function checkShape(shape: ValueShape & { step: number | null }): void {
  if (shape.type !== 'number') {
    for (const key of ['min', 'max', 'step'] as const) {
      if (shape[key] !== null) throw invalid(`/${key}`, 'is only allowed for the number type');
    }
  }
  if (shape.min !== null && shape.max !== null && shape.min > shape.max) {
    throw invalid('/min', 'must not be greater than max');
  }
  if (shape.step !== null && shape.step <= 0) throw invalid('/step', 'must be greater than 0');
  if (shape.type === 'enum' && shape.options.length === 0) throw invalid('/options', 'is required for the enum type');
}
