/**
 * Row access for alerts (§8): rules with the figures derived from their incidents (state, open
 * incidents, firing since, locked), computed in SQL so the list filters run there too.
 */
import { and, desc, eq, gt, gte, isNotNull, type SQL, sql } from 'drizzle-orm';
import { getSettingGroup } from '../../core/settings';
import { insertRow, prepared, updateRow } from '../../db/prepared';
import { alertIncidents, alertRules } from '../../db/schema';
import type { Deps } from '../../deps';
import { AppError, notFound } from '../../http/errors';
import { numericId } from '../../http/fields';
import { transact } from '../../realtime/emit';
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
      assetId: v.assetId,
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

/** The lookups health changes make for every subsystem of a storm, prepared once. */
function statements(deps: Deps) {
  return prepared(deps, 'alerts', () => {
    const incident = (state: 'open' | 'closed') =>
      and(
        eq(alertIncidents.alertId, sql.placeholder('alertId')),
        eq(alertIncidents.sourceId, sql.placeholder('sourceId')),
        eq(alertIncidents.state, state),
      );
    return {
      ruleById: deps.db
        .select()
        .from(alertRules)
        .where(eq(alertRules.id, sql.placeholder('id')))
        .prepare(),
      ruleByKind: deps.db
        .select()
        .from(alertRules)
        .where(eq(alertRules.systemKind, sql.placeholder('kind')))
        .prepare(),
      openIncident: deps.db.select().from(alertIncidents).where(incident('open')).prepare(),
      openIncidents: deps.db
        .select()
        .from(alertIncidents)
        .where(and(eq(alertIncidents.alertId, sql.placeholder('alertId')), eq(alertIncidents.state, 'open')))
        .orderBy(alertIncidents.id)
        .prepare(),
      lastClosed: deps.db
        .select()
        .from(alertIncidents)
        .where(incident('closed'))
        .orderBy(desc(alertIncidents.closedAt), desc(alertIncidents.id))
        .limit(1)
        .prepare(),
    };
  });
}

export function findRule(deps: Deps, id: number): AlertRow | undefined {
  return statements(deps).ruleById.get({ id });
}

/** The rule an `{id}` names, or 404. */
export function requireRule(deps: Deps, raw: string | number): AlertRow {
  const id = typeof raw === 'number' ? raw : numericId(raw);
  const row = id === null ? undefined : findRule(deps, id);
  if (!row) throw notFound('alert', raw);
  return row;
}

export function systemRule(deps: Deps, kind: string): AlertRow | undefined {
  return statements(deps).ruleByKind.get({ kind });
}

export function openIncident(deps: Deps, alertId: number, sourceId: number): IncidentRow | undefined {
  return statements(deps).openIncident.get({ alertId, sourceId });
}

export function openIncidents(deps: Deps, alertId: number): IncidentRow[] {
  return statements(deps).openIncidents.all({ alertId });
}

/** The latest closed incident of (rule, source), for the flap window. */
export function lastClosed(deps: Deps, alertId: number, sourceId: number): IncidentRow | undefined {
  return statements(deps).lastClosed.get({ alertId, sourceId });
}

export function insertIncident(deps: Deps, values: typeof alertIncidents.$inferInsert): IncidentRow {
  return insertRow(deps, 'alerts.incidents', alertIncidents, values);
}

export function updateIncident(deps: Deps, id: number, values: Partial<IncidentRow>): IncidentRow {
  const row = updateRow(deps, 'alerts.incidents', alertIncidents, alertIncidents.id, id, {
    ...values,
    updatedAt: deps.clock.now(),
  });
  if (!row) throw notFound('incident', id);
  return row;
}

export function updateRule(deps: Deps, id: number, values: Partial<AlertRow>): void {
  updateRow(deps, 'alerts.rules', alertRules, alertRules.id, id, values);
}

/**
 * Keeps a delay (`pendingSince`), a repeat interval (`lastNotifiedAt`) and the flap window (the
 * `closedAt` of an incident closed within it, §8 rule 6) counting elapsed time whatever the wall
 * clock does (decided here, RESOURCES being silent). When the clock steps (NTP, an operator's date
 * change; `WallSteps`), the stored starts move with it, so a step of an hour neither fires a delay
 * at once nor holds it an hour longer, and a step back of an hour does not make every close look
 * recent for an hour (folding a new incident into an old one, no notice), nor a step ahead make the
 * window nothing. Only closes the window can still reach move (closed within `flapWindowSeconds`
 * before the step): the `closedAt` shown stays, like `lastNotifiedAt`, a time on the clock as it now
 * stands (with its `firedAt` and `acknowledgedAt`); older history keeps its stamps. A start or a close still ahead of the clock, where no
 * step could be seen (a restart whose clock is behind what was stored: an RTC that lost time in a
 * power cut), counts from now. Called before these times are compared with now or stamped: by the
 * per-second tick, a watched variable's value write, a rule write, and every fire and close, so
 * nothing in the second after a step reads or stamps a time the step has not moved.
 *
 * A delay does not count a stall of the daemon itself either (a VM paused; `deps.stalls`, clock.ts):
 * the values written meanwhile wait unread in the sockets, so whether the condition held is not known
 * until they are read, and the tick after the stall may run first. The pending starts move ahead by
 * the time the daemon could not listen (never past now): no incident and notice, then a recovery,
 * for the appliance's own pause. A repeat interval and the flap window count it as elapsed time.
 */
/** A closed incident's times moved together (SQLite reads every right side from the row as it was), so none shows a close before its fire. */
function movedBy(by: SQL) {
  return {
    firedAt: sql`${alertIncidents.firedAt} + ${by}`,
    acknowledgedAt: sql`${alertIncidents.acknowledgedAt} + ${by}`,
    closedAt: sql`${alertIncidents.closedAt} + ${by}`,
  };
}

export function followWallClock(deps: Deps): void {
  const stalled = deps.alerts.stallsFollowed.take(deps.stalls);
  const look = deps.alerts.wallSteps.look(deps.clock);
  if (!look && stalled === 0) return;
  const step = look?.step ?? 0;
  const now = deps.clock.now();
  const flapMs = getSettingGroup(deps, 'alerts').flapWindowSeconds * 1000;
  transact(deps, () => {
    if (stalled > 0) {
      deps.db
        .update(alertRules)
        .set({ pendingSince: sql`min(${alertRules.pendingSince} + ${stalled}, ${now - step})` })
        .where(isNotNull(alertRules.pendingSince))
        .run();
    }
    if (step !== 0) {
      deps.db
        .update(alertIncidents)
        .set(movedBy(sql`${step}`))
        .where(and(eq(alertIncidents.state, 'closed'), gte(alertIncidents.closedAt, now - step - flapMs)))
        .run();
      deps.db
        .update(alertRules)
        .set({ pendingSince: sql`${alertRules.pendingSince} + ${step}` })
        .where(isNotNull(alertRules.pendingSince))
        .run();
      deps.db
        .update(alertIncidents)
        .set({ lastNotifiedAt: sql`${alertIncidents.lastNotifiedAt} + ${step}` })
        .where(and(eq(alertIncidents.state, 'open'), isNotNull(alertIncidents.lastNotifiedAt)))
        .run();
    }
    deps.db.update(alertRules).set({ pendingSince: now }).where(gt(alertRules.pendingSince, now)).run();
    deps.db
      .update(alertIncidents)
      .set(movedBy(sql`${now} - ${alertIncidents.closedAt}`))
      .where(and(eq(alertIncidents.state, 'closed'), gt(alertIncidents.closedAt, now)))
      .run();
    deps.db
      .update(alertIncidents)
      .set({ lastNotifiedAt: now })
      .where(and(eq(alertIncidents.state, 'open'), gt(alertIncidents.lastNotifiedAt, now)))
      .run();
  });
}
