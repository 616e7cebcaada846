/**
 * Row access for alerts (§8): rules with the figures derived from their incidents (state, open
 * incidents, firing since, locked), computed in SQL so the list filters run there too.
 */
import { and, desc, eq, type SQL, sql } from 'drizzle-orm';
import { alertIncidents, alertRules } from '../../db/schema';
import type { Deps } from '../../deps';
import { AppError, notFound } from '../../http/errors';
import { numericId } from '../../http/fields';
import { getVariable } from '../variables/service';
import { type AlertExtras, toAlertDto, type VariableInfo } from './mapper';
import type { AlertDto } from './model';

export type AlertRow = typeof alertRules.$inferSelect;
export type IncidentRow = typeof alertIncidents.$inferSelect;

const openOf = sql`(select count(*) from alert_incidents i where i.alert_id = alert_rules.id and i.state = 'open')`;

/** `inactive`, `firing` (an open incident), `pending` (delay running) or `ok`. */
export const stateSql = sql<string>`(case when alert_rules.active = 0 then 'inactive' when ${openOf} > 0 then 'firing' when alert_rules.pending_since is not null then 'pending' else 'ok' end)`;

const columns = {
  rule: alertRules,
  state: stateSql,
  openIncidents: sql<number>`${openOf}`,
  firingSince: sql<
    number | null
  >`(select min(i.fired_at) from alert_incidents i where i.alert_id = alert_rules.id and i.state = 'open')`,
  isLocked: sql<number>`(select count(*) from alert_incidents i where i.alert_id = alert_rules.id and i.state = 'open' and i.locked = 1)`,
};

export function selectRules(deps: Deps, where: SQL | undefined) {
  return deps.db.select(columns).from(alertRules).where(where);
}

/** The variable's names for the wire; null when it no longer exists. */
export function variableInfo(deps: Deps, id: number | null): VariableInfo | null {
  if (id === null) return null;
  try {
    const v = getVariable(deps, String(id));
    return {
      displayName: v.displayName,
      externalRef: v.externalRef,
      lastValue: v.lastValue,
      subsystemId: v.subsystemId,
      subsystemExternalId: v.subsystemExternalId,
      subsystemDisplayName: v.subsystemDisplayName,
    };
  } catch (err) {
    if (err instanceof AppError && err.errorCode === 'not_found') return null;
    throw err;
  }
}

export function dtoOf(deps: Deps, r: { rule: AlertRow } & AlertExtras): AlertDto {
  return toAlertDto(r.rule, r, variableInfo(deps, r.rule.variableId));
}

export function alertDto(deps: Deps, id: number): AlertDto {
  const r = selectRules(deps, eq(alertRules.id, id)).get();
  if (!r) throw notFound('alert', id);
  return dtoOf(deps, r);
}

export function findRule(deps: Deps, id: number): AlertRow | undefined {
  return deps.db.select().from(alertRules).where(eq(alertRules.id, id)).get();
}

/** The rule an `{id}` names, or 404. */
export function requireRule(deps: Deps, raw: string | number): AlertRow {
  const id = typeof raw === 'number' ? raw : numericId(raw);
  const row = id === null ? undefined : findRule(deps, id);
  if (!row) throw notFound('alert', raw);
  return row;
}

export function systemRule(deps: Deps, kind: string): AlertRow | undefined {
  return deps.db.select().from(alertRules).where(eq(alertRules.systemKind, kind)).get();
}

export function openIncident(deps: Deps, alertId: number, sourceId: number): IncidentRow | undefined {
  return deps.db
    .select()
    .from(alertIncidents)
    .where(
      and(eq(alertIncidents.alertId, alertId), eq(alertIncidents.sourceId, sourceId), eq(alertIncidents.state, 'open')),
    )
    .get();
}

export function openIncidents(deps: Deps, alertId: number): IncidentRow[] {
  return deps.db
    .select()
    .from(alertIncidents)
    .where(and(eq(alertIncidents.alertId, alertId), eq(alertIncidents.state, 'open')))
    .orderBy(alertIncidents.id)
    .all();
}

/** The latest closed incident of (rule, source), for the flap window. */
export function lastClosed(deps: Deps, alertId: number, sourceId: number): IncidentRow | undefined {
  return deps.db
    .select()
    .from(alertIncidents)
    .where(
      and(
        eq(alertIncidents.alertId, alertId),
        eq(alertIncidents.sourceId, sourceId),
        eq(alertIncidents.state, 'closed'),
      ),
    )
    .orderBy(desc(alertIncidents.closedAt), desc(alertIncidents.id))
    .get();
}

export function updateIncident(deps: Deps, id: number, values: Partial<IncidentRow>): IncidentRow {
  const row = deps.db
    .update(alertIncidents)
    .set({ ...values, updatedAt: deps.clock.now() })
    .where(eq(alertIncidents.id, id))
    .returning()
    .get();
  if (!row) throw notFound('incident', id);
  return row;
}

export function updateRule(deps: Deps, id: number, values: Partial<AlertRow>): void {
  deps.db.update(alertRules).set(values).where(eq(alertRules.id, id)).run();
}
