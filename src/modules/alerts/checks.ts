/**
 * A rule write body checked against §8 "Bad input" and turned into column values. A system rule
 * keeps its condition: the condition fields of its body are ignored like read-only fields. A null
 * condition field is taken as absent (it is what a system rule or a rule whose variable was deleted
 * reads back), so the stored condition stays.
 */

import { changedFields } from '../../core/changes';
import { getSettingGroup } from '../../core/settings';
import type { StoredAlertDestination } from '../../db/schema';
import type { Deps } from '../../deps';
import { longerThan } from '../../http/characters';
import { AppError, invalid } from '../../http/errors';
import { cleanName, numericId } from '../../http/fields';
import { instantOfBody } from '../../http/instant';
import { getRole } from '../roles/service';
import { findUserById, findUserByUsername } from '../users/accounts';
import { getVariable, getVariableByRef } from '../variables/service';
import { compileRegex } from './evaluate';
import { type AlertWrite, criticalityOf, DEFAULT_MESSAGE, ORDERING_OPERATORS } from './model';
import type { AlertRow } from './store';

export type RuleValues = Partial<Omit<AlertRow, 'id' | 'createdAt' | 'updatedAt'>>;

function notFoundToInvalid<T>(lookup: () => T, path: string, message: string): T {
  try {
    return lookup();
  } catch (err) {
    if (err instanceof AppError && err.errorCode === 'not_found') throw invalid(path, message);
    throw err;
  }
}

/** What a rule keeps of the variable it watches: `_id`, subsystem, and the pair it re-links by. */
export interface RuleVariable {
  variableId: number;
  subsystemId: number;
  variableSubsystemExternalId: string;
  variableExternalRef: string;
}

/** The columns a rule watching `v` stores. */
export function ruleVariable(v: {
  _id: number;
  subsystemId: number;
  subsystemExternalId: string;
  externalRef: string;
}): RuleVariable {
  return {
    variableId: v._id,
    subsystemId: v.subsystemId,
    variableSubsystemExternalId: v.subsystemExternalId,
    variableExternalRef: v.externalRef,
  };
}

/** The variable a body names: `_id`, or `externalRef` with `subsystemExternalId` (or `subsystemId`). */
function variableOf(deps: Deps, body: AlertWrite): RuleVariable {
  const raw = body.variable ?? '';
  const subsystem = body.subsystemExternalId ?? body.subsystemId ?? null;
  const unknown = 'does not exist';
  if (typeof raw === 'string' && subsystem !== null) {
    return ruleVariable(notFoundToInvalid(() => getVariableByRef(deps, String(subsystem), raw), '/variable', unknown));
  }
  const id = typeof raw === 'number' ? raw : numericId(raw);
  if (id === null) throw invalid('/subsystemExternalId', 'is required with a variable externalRef');
  return ruleVariable(notFoundToInvalid(() => getVariable(deps, String(id)), '/variable', unknown));
}

function isNumeric(text: string): boolean {
  return text.trim() !== '' && Number.isFinite(Number(text));
}

function checkCondition(operator: string, value: string): void {
  if (ORDERING_OPERATORS.includes(operator) && !isNumeric(value))
    throw invalid('/value', `must be numeric for the operator ${operator}`);
  if (operator === 'matches' && (longerThan(value, 200) || compileRegex(value) === null))
    throw invalid('/value', 'must be a valid regular expression of at most 200 characters');
}

function userIdOf(deps: Deps, key: number | string, path: string): number {
  const row = typeof key === 'number' ? findUserById(deps, key) : findUserByUsername(deps, key);
  if (!row) throw invalid(path, 'does not exist');
  return row.id;
}

function roleIdOf(deps: Deps, key: number | string, path: string): number {
  return notFoundToInvalid(() => getRole(deps, String(key)), path, 'does not exist')._id;
}

function smtpConfigured(deps: Deps): boolean {
  const smtp = getSettingGroup(deps, 'smtp');
  return smtp !== null && typeof smtp.host === 'string' && smtp.host !== '';
}

function destinationsOf(deps: Deps, list: NonNullable<AlertWrite['destinations']>): StoredAlertDestination[] {
  return list.map((d, i) => {
    const path = `/destinations/${i}`;
    if (d.user === undefined && d.role === undefined) throw invalid(path, 'needs a user or a role');
    if (d.method.includes('email') && !smtpConfigured(deps))
      throw invalid(`${path}/method`, 'email needs the smtp settings');
    return {
      ...(d.user === undefined ? {} : { user: userIdOf(deps, d.user, `${path}/user`) }),
      ...(d.role === undefined ? {} : { role: roleIdOf(deps, d.role, `${path}/role`) }),
      method: [...new Set(d.method)],
    };
  });
}

function timeOf(value: string | null): number | null {
  return value === null ? null : instantOfBody(value, '/snoozedUntil');
}

/** The column values of a body; `existing` is the rule being updated (undefined on create). */
export function ruleValues(deps: Deps, body: AlertWrite, existing?: AlertRow): RuleValues {
  const values: RuleValues = {};
  const system = existing?.type === 'system';
  if (body.displayName !== undefined) values.displayName = cleanName(body.displayName);
  else if (!existing) throw invalid('/displayName', 'is required');
  if (body.description !== undefined) values.description = body.description;
  if (!system) {
    // The stored `_id` sent back names no change, even when that variable was deleted since.
    const unchanged = typeof body.variable === 'number' && body.variable === existing?.variableId;
    if (body.variable !== undefined && body.variable !== null && !unchanged) {
      Object.assign(values, variableOf(deps, body));
    } else if (!existing) throw invalid('/variable', 'is required');
    const operator = body.operator ?? existing?.operator ?? undefined;
    if (operator === undefined) throw invalid('/operator', 'is required');
    const sentValue = body.value ?? undefined;
    const rawValue = sentValue === undefined ? (existing?.value ?? undefined) : String(sentValue);
    if (rawValue === undefined) throw invalid('/value', 'is required');
    checkCondition(operator, rawValue);
    if (body.operator !== undefined && body.operator !== null) values.operator = body.operator;
    if (sentValue !== undefined) values.value = rawValue;
    if (body.delaySeconds !== undefined) values.delaySeconds = body.delaySeconds;
    // The default text read back and sent again stays "the default" (null).
    if (body.message !== undefined) values.message = body.message === DEFAULT_MESSAGE ? null : body.message;
    if (body.lock !== undefined) values.lock = body.lock;
    const log = body.log ?? body.Log;
    if (log !== undefined) values.log = log;
  }
  if (body.criticality !== undefined) values.criticality = criticalityOf(body.criticality);
  if (body.lifeCycle !== undefined) values.lifeCycle = body.lifeCycle;
  if (body.repeatIntervalSeconds !== undefined) values.repeatIntervalSeconds = body.repeatIntervalSeconds;
  if (body.recovery !== undefined) values.recovery = body.recovery;
  const active = body.active ?? body.Active;
  if (active !== undefined) values.active = active;
  if (body.destinations !== undefined) values.destinations = destinationsOf(deps, body.destinations);
  if (body.snoozedUntil !== undefined) values.snoozedUntil = timeOf(body.snoozedUntil);
  if (values.active === true || values.variableId !== undefined) values.inactiveReason = null;
  if (
    existing?.inactiveReason === 'variable_missing' &&
    values.variableId === undefined &&
    (values.active ?? existing.active)
  )
    throw invalid('/active', 'cannot be true while the variable is missing; name another variable');
  return values;
}

/** The wire names of the fields whose value differs from the stored row (every set one on create). */
export function changedRuleFields(values: RuleValues, row?: AlertRow): string[] {
  const wire: Record<string, string> = { variableId: 'variable' };
  // These follow from other fields: the variable names its subsystem and pair, activation clears the reason.
  const derived = ['inactiveReason', 'subsystemId', 'variableSubsystemExternalId', 'variableExternalRef'];
  return changedFields(row, values)
    .filter((k) => !derived.includes(k))
    .map((k) => wire[k] ?? k);
}
