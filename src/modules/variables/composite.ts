/**
 * Composite variables (§4 rule 5): `[function, id, id, …]` over 1–50 inputs. The value is computed
 * from the inputs and written as a value write with source `composite` whenever an input changes.
 * Which composites read which input is cached per database and dropped on every definition change.
 */
import { eq, inArray } from 'drizzle-orm';
import { variables } from '../../db/schema';
import type { Deps } from '../../deps';
import { invalid } from '../../http/errors';

export const COMPOSITE_FUNCTIONS = ['sum', 'min', 'max', 'avg', 'any', 'all', 'worst'] as const;
type CompositeFunction = (typeof COMPOSITE_FUNCTIONS)[number];
const MAX_INPUTS = 50;
const SHAPE = `must be [function, id, …] with function one of ${COMPOSITE_FUNCTIONS.join(', ')} and 1 to ${MAX_INPUTS} variable ids`;

function definitionsOf(deps: Deps, ids: number[]): Map<number, string[]> {
  if (ids.length === 0) return new Map();
  const rows = deps.db
    .select({ id: variables.id, composite: variables.composite, definition: variables.compositeDefinition })
    .from(variables)
    .where(inArray(variables.id, ids))
    .all();
  return new Map(rows.map((r) => [r.id, r.composite ? r.definition : []]));
}

/** True when following composite inputs from `start` reaches `target`. */
function reaches(deps: Deps, start: number[], target: number): boolean {
  const seen = new Set<number>();
  let frontier = start;
  while (frontier.length > 0) {
    const next: number[] = [];
    for (const [id, definition] of definitionsOf(deps, frontier)) {
      if (id === target) return true;
      if (seen.has(id)) continue;
      seen.add(id);
      for (const input of definition.slice(1)) next.push(Number(input));
    }
    frontier = next.filter((id) => !seen.has(id));
  }
  return false;
}

/** Whether a body's definition is the stored one (ids as numbers or strings). */
export function sameDefinition(value: unknown, stored: readonly string[] | undefined): boolean {
  return (
    stored !== undefined &&
    Array.isArray(value) &&
    value.length === stored.length &&
    value.every((item, i) => (typeof item === 'string' || typeof item === 'number') && String(item) === stored[i])
  );
}

/** A definition from a body, checked: known function, 1–50 existing inputs, not itself, no cycle. */
export function compositeDefinitionOf(deps: Deps, value: unknown, selfId: number | null): string[] {
  // `[]` is what a non-composite variable reads back; a client PUTting it back clears nothing.
  if (Array.isArray(value) && value.length === 0) return [];
  if (!Array.isArray(value) || value.length < 2 || value.length > MAX_INPUTS + 1)
    throw invalid('/compositeDefinition', SHAPE);
  const [fn, ...inputs] = value as unknown[];
  if (typeof fn !== 'string' || !(COMPOSITE_FUNCTIONS as readonly string[]).includes(fn))
    throw invalid('/compositeDefinition/0', `must be one of ${COMPOSITE_FUNCTIONS.join(', ')}`);
  const ids = inputs.map((input, i) => {
    const path = `/compositeDefinition/${i + 1}`;
    const text = typeof input === 'number' ? String(input) : input;
    if (typeof text !== 'string' || !/^[0-9]{1,15}$/.test(text) || Number(text) < 1)
      throw invalid(path, 'must be a variable _id');
    const id = Number(text);
    if (id === selfId) throw invalid(path, 'must not name the variable itself');
    return id;
  });
  const unique = [...new Set(ids)];
  const known = definitionsOf(deps, unique);
  ids.forEach((id, i) => {
    if (!known.has(id)) throw invalid(`/compositeDefinition/${i + 1}`, 'names a variable that does not exist');
  });
  if (selfId !== null) {
    ids.forEach((id, i) => {
      if (reaches(deps, [id], selfId))
        throw invalid(`/compositeDefinition/${i + 1}`, 'makes a cycle of composite variables');
    });
  }
  return [fn, ...unique.map(String)];
}

/** Composite ids by input id. */
export function compositeDependents(deps: Deps): Map<number, number[]> {
  let map = deps.variables.compositeDependents;
  if (!map) {
    map = new Map();
    const rows = deps.db
      .select({ id: variables.id, definition: variables.compositeDefinition })
      .from(variables)
      .where(eq(variables.composite, true))
      .all();
    for (const row of rows) {
      for (const input of row.definition.slice(1)) {
        const id = Number(input);
        const list = map.get(id);
        if (list) list.push(row.id);
        else map.set(id, [row.id]);
      }
    }
    deps.variables.compositeDependents = map;
  }
  return map;
}

/** Called whenever a definition, a composite flag or a variable's existence changes. */
export function dropCompositeCache(deps: Deps): void {
  deps.variables.compositeDependents = null;
}

function numbers(values: string[]): number[] {
  return values
    .filter((v) => v.trim() !== '')
    .map(Number)
    .filter(Number.isFinite);
}

const truthy = (v: string) => v === 'true' || (v.trim() !== '' && Number.isFinite(Number(v)) && Number(v) !== 0);

/** The value a composite function gives for its inputs' values and health states. */
export function computeComposite(fn: string, inputs: Array<{ lastValue: string; healthState: number }>): string {
  const values = inputs.map((i) => i.lastValue);
  const nums = numbers(values);
  switch (fn as CompositeFunction) {
    case 'sum':
      return String(nums.reduce((a, b) => a + b, 0));
    case 'min':
      return nums.length === 0 ? '' : String(Math.min(...nums));
    case 'max':
      return nums.length === 0 ? '' : String(Math.max(...nums));
    case 'avg':
      return nums.length === 0 ? '' : String(nums.reduce((a, b) => a + b, 0) / nums.length);
    case 'any':
      return String(values.some(truthy));
    case 'all':
      return String(values.length > 0 && values.every(truthy));
    case 'worst':
      return String(inputs.reduce((w, i) => Math.max(w, i.healthState), -1));
    default:
      return '';
  }
}

/** The computed value of a composite from the inputs' current rows. */
export function compositeValue(deps: Deps, definition: readonly string[]): string {
  const [fn = '', ...ids] = definition;
  const rows = ids.length
    ? deps.db
        .select({ id: variables.id, lastValue: variables.lastValue, healthState: variables.healthState })
        .from(variables)
        .where(
          inArray(
            variables.id,
            ids.map((id) => Number(id)),
          ),
        )
        .all()
    : [];
  return computeComposite(fn, rows);
}
