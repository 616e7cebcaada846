/**
 * Alerts (§8): rules (list, read, upsert, update, delete), acknowledging, and the incident history.
 * A write re-evaluates the rule against its variable's current value (rule 1); deactivating or
 * deleting closes its incidents without a recovery notice (rule 9). A rule whose variable a driver
 * deletes is deactivated (`variable_missing`, listeners.ts) and re-links when the driver registers
 * the same subsystem externalId + externalRef again (relink.ts, where the decisions are written): a
 * rule the platform deactivated comes back active, one an operator deactivated stays inactive.
 */
import { and, count, desc, eq, gte, lte, type SQL } from 'drizzle-orm';
import { changedFields } from '../../core/changes';
import { type AuditSubject, audit } from '../../core/platform-log';
import type { Principal } from '../../core/principal';
import { findSubsystem } from '../../core/subsystems';
import { alertIncidents, alertRules } from '../../db/schema';
import type { Deps } from '../../deps';
import { conflict } from '../../http/errors';
import { numericId } from '../../http/fields';
import { instantOfQuery } from '../../http/instant';
import { fieldConditions, type ListResult, type Page } from '../../http/lists';
import { upsertTarget } from '../../http/upsert';
import { emit, transact } from '../../realtime/emit';
import { mailOfIncidents } from '../mail/service';
import { getVariableByRef } from '../variables/service';
import { changedRuleFields, ruleValues } from './checks';
import { acknowledge, closeAll, closeIncident, isSnoozed, notifyUnnotified } from './engine';
import { dropAlertIndex, evaluateNow } from './evaluate';
import { toIncidentDto } from './mapper';
import {
  ALERT_FIELD_FILTERS,
  type AlertDto,
  type AlertListQuery,
  type AlertWrite,
  type IncidentDto,
  type IncidentQuery,
} from './model';
import { noticeKey } from './notices';
import {
  type AlertRow,
  alertDto,
  dtoOf,
  findRule,
  followWallClock,
  openIncidents,
  requireRule,
  selectRules,
  stateSql,
} from './store';

/** How the `alert.<change>` audit entries name an alert rule. */
function alertSubject(row: AlertRow): AuditSubject {
  return { kind: 'alert', name: `alert ${row.id} (${row.displayName})` };
}

/** The variable a `variable` filter names: digits = `_id`, otherwise an externalRef with the subsystem filter. */
function variableFilter(deps: Deps, query: AlertListQuery): number {
  const raw = query.variable ?? '';
  const id = numericId(raw);
  if (id !== null && query.subsystemExternalId === undefined) return id;
  if (query.subsystemExternalId === undefined) return 0;
  try {
    return getVariableByRef(deps, query.subsystemExternalId, raw)._id;
  } catch {
    return id ?? 0;
  }
}

/** `GET /alerts`: filters `type`, `state`, `active`, `subsystemExternalId`, `variable`, in SQL. */
export function listAlerts(deps: Deps, query: AlertListQuery, page: Page): ListResult<AlertDto> {
  const where: Array<SQL | undefined> = [];
  if (query.type !== undefined) where.push(eq(alertRules.type, query.type));
  if (query.state !== undefined) where.push(eq(stateSql, query.state));
  if (query.active !== undefined) where.push(eq(alertRules.active, query.active === 'true'));
  if (query.subsystemExternalId !== undefined)
    where.push(eq(alertRules.subsystemId, findSubsystem(deps, query.subsystemExternalId)?.id ?? 0));
  if (query.variable !== undefined) where.push(eq(alertRules.variableId, variableFilter(deps, query)));
  where.push(
    ...fieldConditions(query, ALERT_FIELD_FILTERS, {
      displayName: alertRules.displayName,
      description: alertRules.description,
      systemKind: alertRules.systemKind,
      operator: alertRules.operator,
      value: alertRules.value,
      delaySeconds: alertRules.delaySeconds,
      criticality: alertRules.criticality,
      lifeCycle: alertRules.lifeCycle,
      repeatIntervalSeconds: alertRules.repeatIntervalSeconds,
      lock: alertRules.lock,
      recovery: alertRules.recovery,
      log: alertRules.log,
      inactiveReason: alertRules.inactiveReason,
    }),
  );
  const condition = and(...where);
  const total = deps.db.select({ n: count() }).from(alertRules).where(condition).get()?.n ?? 0;
  const rows = selectRules(deps, condition).orderBy(alertRules.id).limit(page.limit).offset(page.offset).all();
  return { items: rows.map((r) => dtoOf(deps, r)), total };
}

export function getAlert(deps: Deps, id: string): AlertDto {
  return alertDto(deps, requireRule(deps, id).id);
}

/**
 * What follows any rule write (also a re-link, relink.ts): the index, closing on deactivation,
 * re-evaluation (unless `evaluate` is false: a value write about to be heard evaluates it), a lifted snooze.
 * The stored pending starts and repeats follow a wall-clock step first (`followWallClock`), as the
 * tick and a value write do: a rule written in the second after an NTP step, before the tick saw it,
 * would otherwise compare an unmoved pending start with the stepped clock.
 */
export function afterWrite(deps: Deps, before: AlertRow | undefined, id: number, evaluate = true): void {
  followWallClock(deps);
  dropAlertIndex(deps);
  const rule = findRule(deps, id);
  if (!rule) return;
  if (!rule.active) {
    if (before?.active !== false) closeAll(deps, rule, 'rule_inactive');
    if (rule.pendingSince !== null)
      deps.db.update(alertRules).set({ pendingSince: null }).where(eq(alertRules.id, id)).run();
    return;
  }
  if (before && before.variableId !== rule.variableId) {
    for (const incident of openIncidents(deps, rule.id)) closeIncident(deps, rule, incident, 'rule_inactive');
    deps.db.update(alertRules).set({ pendingSince: null }).where(eq(alertRules.id, id)).run();
  }
  if (!isSnoozed(rule, deps.clock.now())) notifyUnnotified(deps, rule);
  const fresh = findRule(deps, id);
  if (evaluate && fresh?.type === 'variable') evaluateNow(deps, fresh);
}

function create(deps: Deps, principal: Principal, body: AlertWrite): AlertDto {
  const values = ruleValues(deps, body);
  const now = deps.clock.now();
  return transact(deps, () => {
    const row = deps.db
      .insert(alertRules)
      .values({
        destinations: [],
        ...values,
        displayName: values.displayName ?? '',
        type: 'variable',
        createdAt: now,
        updatedAt: now,
      })
      .returning()
      .get();
    const changed = changedRuleFields(values);
    emit(deps, 'alert.created', { _id: row.id, changed });
    audit(deps, principal, 'created', alertSubject(row), changed);
    afterWrite(deps, undefined, row.id);
    return alertDto(deps, row.id);
  });
}

/**
 * Updates a rule with the fields the body changes. One that changes no stored column (`{}`, the rule
 * sent back as read) answers the rule as it is: `_updatedAt` stays, no `alert.updated`, no audit
 * entry, no re-evaluation (core/changes.ts, as every module).
 */
function update(deps: Deps, principal: Principal, row: AlertRow, body: AlertWrite): AlertDto {
  const values = ruleValues(deps, body, row);
  if (changedFields(row, values).length === 0) return alertDto(deps, row.id);
  const changed = changedRuleFields(values, row);
  return transact(deps, () => {
    deps.db
      .update(alertRules)
      .set({ ...values, updatedAt: deps.clock.now() })
      .where(eq(alertRules.id, row.id))
      .run();
    emit(deps, 'alert.updated', { _id: row.id, changed });
    audit(deps, principal, 'updated', alertSubject(row), changed);
    afterWrite(deps, row, row.id);
    return alertDto(deps, row.id);
  });
}

/**
 * `POST|PUT /alerts` (C: Requests): updates the rule `_id` names when it exists, otherwise creates
 * one (a rule has no natural key; an unknown `_id` is ignored).
 */
export function upsertAlert(
  deps: Deps,
  principal: Principal,
  body: AlertWrite,
): { entity: AlertDto; created: boolean } {
  const existing = upsertTarget(
    body._id,
    (id) => findRule(deps, id),
    () => undefined,
  );
  if (existing) return { entity: update(deps, principal, existing, body), created: false };
  return { entity: create(deps, principal, body), created: true };
}

export function updateAlert(deps: Deps, principal: Principal, id: string, body: AlertWrite): AlertDto {
  return update(deps, principal, requireRule(deps, id), body);
}

/** `DELETE /alerts/{id}`: 409 for a system rule; open incidents close as `rule_deleted`, the history stays. */
export function deleteAlert(deps: Deps, principal: Principal, id: string): void {
  const row = requireRule(deps, id);
  if (row.type === 'system') throw conflict('a system rule cannot be deleted; deactivate it instead');
  transact(deps, () => {
    closeAll(deps, row, 'rule_deleted');
    deps.db.delete(alertRules).where(eq(alertRules.id, row.id)).run();
    dropAlertIndex(deps);
    emit(deps, 'alert.deleted', { _id: row.id, changed: [] });
    audit(deps, principal, 'deleted', alertSubject(row), []);
  });
}

/** `POST /alerts/{id}/acknowledge` (rule 7). */
export function acknowledgeAlert(
  deps: Deps,
  principal: Principal,
  id: string,
  body: { source?: number | string } | null | undefined,
): AlertDto {
  const row = requireRule(deps, id);
  transact(deps, () => {
    const n = acknowledge(deps, row.id, principal.label, body?.source);
    if (n > 0) audit(deps, principal, 'acknowledged', alertSubject(row), []);
  });
  return alertDto(deps, row.id);
}

/**
 * Rule 3 of §7: the `acknowledge` button of an alert notification acknowledges the open incident
 * whose notice has that key (the key is made by `noticeKey` alone, so it is matched, never parsed).
 */
export function acknowledgeByNoticeKey(deps: Deps, key: string, by: string): void {
  const open = deps.db.select().from(alertIncidents).where(eq(alertIncidents.state, 'open')).all();
  for (const incident of open) {
    const rule = findRule(deps, incident.alertId);
    if (rule && noticeKey(rule, incident.sourceId) === key) acknowledge(deps, rule.id, by, incident.sourceId);
  }
}

/** `GET /alerts/history`: incidents, newest first. */
export function listIncidents(deps: Deps, query: IncidentQuery, page: Page): ListResult<IncidentDto> {
  const where: Array<SQL | undefined> = [];
  if (query.alertId !== undefined) where.push(eq(alertIncidents.alertId, Number(query.alertId)));
  if (query.state !== undefined) where.push(eq(alertIncidents.state, query.state));
  if (query.sourceType !== undefined) where.push(eq(alertIncidents.sourceType, query.sourceType));
  if (query.from !== undefined) where.push(gte(alertIncidents.firedAt, instantOfQuery(query.from, '/from')));
  if (query.to !== undefined) where.push(lte(alertIncidents.firedAt, instantOfQuery(query.to, '/to')));
  const condition = and(...where);
  const total = deps.db.select({ n: count() }).from(alertIncidents).where(condition).get()?.n ?? 0;
  const rows = deps.db
    .select()
    .from(alertIncidents)
    .where(condition)
    .orderBy(desc(alertIncidents.firedAt), desc(alertIncidents.id))
    .limit(page.limit)
    .offset(page.offset)
    .all();
  const mail = mailOfIncidents(
    deps,
    rows.map((r) => r.id),
  );
  return { items: rows.map((r) => toIncidentDto(r, mail.get(r.id))), total };
}
