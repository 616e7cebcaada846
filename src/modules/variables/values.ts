/**
 * Value writes (§4 rules 1, 2, 5, 6): run inside a writer job. A changed value updates the row and its
 * health in one statement, appends a history point, writes an activity entry when `log`, recomputes
 * the composites reading it and queues its events for after the commit. An unchanged value only moves
 * `lastValueUpdatedAt`.
 */
import { iso } from '../../clock';
import type { Principal } from '../../core/principal';
import { insertRow } from '../../db/prepared';
import { logs } from '../../db/schema';
import type { WriteScope } from '../../db/writer';
import type { Deps } from '../../deps';
import { longerThan } from '../../http/characters';
import { invalid, notFound } from '../../http/errors';
import { jsonText } from '../../http/fields';
import { compositeDependents, compositeValue } from './composite';
import { MAX_VALUE_LENGTH } from './model';
import { findVariable, forgetVariable, rememberVariable, statements } from './repo';
import { evaluateHealth, type HealthFields, sameHealth } from './rules';
import type { LoadedVariable } from './state';

export type ValueSource = 'subsystem' | 'user' | 'token' | 'composite' | 'preset' | 'system';

export interface Origin {
  source: ValueSource;
  by: string | null;
}

export interface WriteContext {
  deps: Deps;
  scope: WriteScope;
  now: number;
}

/**
 * Values travel as strings: non-strings as their JSON text (`jsonText`: a number past the largest
 * double is 400, never the text "null"), null as "" (C: Requests). Every value write comes here: by
 * `_id`, by reference, the upserts' `lastValue`.
 */
export function valueText(value: unknown, path: string): string {
  const text = typeof value === 'string' ? value : value === null || value === undefined ? '' : jsonText(value, path);
  if (longerThan(text, MAX_VALUE_LENGTH)) throw invalid(path, `must be at most ${MAX_VALUE_LENGTH} characters`);
  return text;
}

/** Who wrote a value: an integration caller is its subsystem, else the signed-in user or the token. */
export function originOf(principal: Principal): Origin {
  if (principal.via === 'system') return { source: 'system', by: 'system' };
  if (principal.integration) return { source: 'subsystem', by: principal.label };
  if (principal.via === 'session') return { source: 'user', by: principal.username };
  return { source: 'token', by: principal.label };
}

function writeActivityLog(ctx: WriteContext, row: LoadedVariable, value: string, origin: Origin): void {
  const entry = insertRow(ctx.deps, 'logs', logs, {
    time: ctx.now,
    key: `variable.${row.externalRef}`,
    value: `${row.displayName} changed to ${value}`.slice(0, MAX_VALUE_LENGTH),
    severity: 'info',
    category: 'activity',
    createdBy: origin.by ?? origin.source,
    createdByType: origin.source === 'user' ? 'user' : origin.source === 'subsystem' ? 'subsystem' : 'system',
    tags: [],
    subsystemId: row.subsystemId,
    subsystemExternalId: row.subsystemExternalId,
    createdAt: ctx.now,
    updatedAt: ctx.now,
  });
  ctx.scope.emit('log.created', { _id: entry.id, key: `variable.${row.externalRef}`, category: 'activity' });
}

function healthEvent(ctx: WriteContext, row: LoadedVariable, before: number): void {
  const data = { _id: row.id, healthState: row.healthState, previousHealthState: before };
  ctx.scope.emit('variable.health_changed', data);
}

/** Recomputes the composites reading `input` (after its value or health changed). */
function recomputeDependents(ctx: WriteContext, input: number): void {
  const dependents = compositeDependents(ctx.deps).get(input);
  if (!dependents) return;
  for (const id of dependents) recomputeComposite(ctx, id, `variable:${input}`);
}

/** Writes a composite's computed value when it differs from the stored one. */
export function recomputeComposite(ctx: WriteContext, id: number, by: string): LoadedVariable | undefined {
  const row = findVariable(ctx.deps, id);
  if (!row?.composite) return row;
  const value = compositeValue(ctx.deps, row.compositeDefinition);
  if (value === row.lastValue && row.lastValueUpdatedAt !== null) return row;
  return applyValue(ctx, row, value, { source: 'composite', by });
}

/**
 * Applies one value write to a loaded row, updating that object in place (it is the cached current
 * state; a rolled-back job forgets it, so the next write reads the row afresh); returns it.
 */
export function applyValue(ctx: WriteContext, row: LoadedVariable, value: string, origin: Origin): LoadedVariable {
  const { deps, now } = ctx;
  ctx.scope.onUndo(() => forgetVariable(deps, row.id));
  const previousValue = row.lastValue;
  const before: HealthFields = {
    healthState: row.healthState,
    healthPendingState: row.healthPendingState,
    healthPendingSince: row.healthPendingSince,
  };
  const changed = value !== previousValue;
  row.lastValue = value;
  row.lastValueUpdatedAt = now;
  if (changed) row.updatedAt = now;
  const health: HealthFields = evaluateHealth(row, now);
  Object.assign(row, health);
  const s = statements(deps);
  const result = sameHealth(health, before)
    ? s.setValueOnly.run(value, now, row.updatedAt, row.id)
    : s.setValue.run(
        value,
        now,
        row.updatedAt,
        health.healthState,
        health.healthPendingState,
        health.healthPendingSince,
        row.id,
      );
  if (result.changes === 0) {
    forgetVariable(deps, row.id);
    throw notFound('variable', row.id);
  }
  rememberVariable(deps, row);
  if (health.healthState !== before.healthState) healthEvent(ctx, row, before.healthState);
  if (!changed) {
    if (health.healthState !== before.healthState) recomputeDependents(ctx, row.id);
    return row;
  }
  if (row.storeHistory) s.appendHistory.run(row.id, now, value, origin.source, origin.by);
  if (row.log) writeActivityLog(ctx, row, value, origin);
  const data = {
    _id: row.id,
    subsystemExternalId: row.subsystemExternalId,
    externalRef: row.externalRef,
    lastValue: value,
    previousValue,
    lastValueUpdatedAt: iso(now),
    source: origin.source,
  };
  ctx.scope.emit('variable.changed', data);
  recomputeDependents(ctx, row.id);
  return row;
}

/** Re-evaluates a variable's health without a value write (grace period passed, rules changed); true when the row changed. */
export function reevaluateHealth(ctx: WriteContext, id: number): boolean {
  const row = findVariable(ctx.deps, id);
  if (!row) return false;
  const health = evaluateHealth(row, ctx.now);
  if (sameHealth(health, row)) return false;
  const s = statements(ctx.deps);
  forgetVariable(ctx.deps, row.id);
  s.setValue.run(
    row.lastValue,
    row.lastValueUpdatedAt,
    row.updatedAt,
    health.healthState,
    health.healthPendingState,
    health.healthPendingSince,
    row.id,
  );
  if (health.healthState !== row.healthState) {
    healthEvent(ctx, { ...row, ...health }, row.healthState);
    recomputeDependents(ctx, row.id);
  }
  return true;
}
