/**
 * Incidents (§8 rules 3-9, 11): opening one per (rule, source), raising its match count while open,
 * the flap window, the lock, closing with or without recovery, acknowledging, and the notices each
 * step sends. Everything is stored as it happens (incident, `notified`, `lastNotifiedAt`), so a
 * restart continues where it stopped and sends nothing twice.
 */

import { writePlatformLog } from '../../core/platform-log';
import { getSettingGroup } from '../../core/settings';
import { findSubsystem } from '../../core/subsystems';
import type { Deps } from '../../deps';
import { emit, transact } from '../../realtime/emit';
import { incidentEventData } from './mapper';
import { clearNotice, type NoticeContext, sendNotice, sendRecoveryNotice } from './notices';
import {
  type AlertRow,
  findRule,
  followWallClock,
  type IncidentRow,
  insertIncident,
  lastClosed,
  openIncident,
  openIncidents,
  updateIncident,
  updateRule,
  variableInfo,
} from './store';

export interface AlertSource {
  type: 'variable' | 'subsystem' | 'player' | 'webhook' | 'schedule' | 'storage' | 'license' | 'backup' | 'asset';
  id: number;
  externalId: string | null;
  displayName: string | null;
}

export type CloseReason = 'recovered' | 'acknowledged' | 'rule_deleted' | 'rule_inactive';

export function isSnoozed(rule: AlertRow, now: number): boolean {
  return rule.snoozedUntil !== null && rule.snoozedUntil > now;
}

/** The subsystem an incident's notice names. */
function contextOf(deps: Deps, rule: AlertRow, incident: IncidentRow): NoticeContext {
  if (rule.systemKind === 'subsystem-offline') {
    const s = findSubsystem(deps, incident.sourceId);
    return { subsystemId: s?.id ?? null, subsystemName: s?.displayName ?? '' };
  }
  if (rule.type === 'variable' || rule.systemKind === 'variable-health') {
    const v = variableInfo(deps, incident.sourceId);
    return { subsystemId: v?.subsystemId ?? null, subsystemName: v?.subsystemDisplayName ?? '' };
  }
  return { subsystemId: null, subsystemName: '' };
}

function log(deps: Deps, rule: AlertRow, key: string, text: string, severity: 'info' | 'warning' | 'error'): void {
  if (!rule.log) return;
  writePlatformLog(deps, { category: 'system', key, value: text, severity });
}

const sourceName = (i: IncidentRow) => i.sourceDisplayName ?? i.sourceExternalId ?? String(i.sourceId);

/** Sends the incident's notice and records that it went out. */
export function notify(deps: Deps, rule: AlertRow, incident: IncidentRow): IncidentRow {
  return transact(deps, () => {
    sendNotice(deps, rule, incident, contextOf(deps, rule, incident));
    return updateIncident(deps, incident.id, { notified: true, lastNotifiedAt: deps.clock.now() });
  });
}

/**
 * The condition holds for `source`: raises the open incident's count, reopens one closed within the
 * flap window (no notice), or opens a new one (`alert.fired`, a log entry, the notice unless snoozed).
 */
export function fire(deps: Deps, rule: AlertRow, source: AlertSource, value: string | null): void {
  transact(deps, () => fireNow(deps, rule, source, value));
}

function fireNow(deps: Deps, rule: AlertRow, source: AlertSource, value: string | null): void {
  // The flap window is measured on closes that follow wall-clock steps (store.ts).
  followWallClock(deps);
  const now = deps.clock.now();
  if (rule.pendingSince !== null) updateRule(deps, rule.id, { pendingSince: null });
  const open = openIncident(deps, rule.id, source.id);
  if (open) {
    updateIncident(deps, open.id, { matchCount: open.matchCount + 1, lastValue: value, locked: false });
    return;
  }
  const flapMs = getSettingGroup(deps, 'alerts').flapWindowSeconds * 1000;
  const recent = lastClosed(deps, rule.id, source.id);
  if (
    recent?.closedAt != null &&
    now - recent.closedAt < flapMs &&
    (recent.closedReason === 'recovered' || recent.closedReason === 'acknowledged')
  ) {
    updateIncident(deps, recent.id, {
      state: 'open',
      closedAt: null,
      closedReason: null,
      acknowledgedAt: null,
      acknowledgedBy: null,
      matchCount: recent.matchCount + 1,
      lastValue: value,
      locked: false,
    });
    return;
  }
  const incident = insertIncident(deps, {
    alertId: rule.id,
    sourceType: source.type,
    sourceId: source.id,
    sourceExternalId: source.externalId,
    sourceDisplayName: source.displayName,
    state: 'open',
    firedAt: now,
    lastValue: value,
    matchCount: 1,
    createdAt: now,
    updatedAt: now,
  });
  updateRule(deps, rule.id, { lastFiredAt: now });
  emit(deps, 'alert.fired', incidentEventData(rule, incident));
  log(deps, rule, 'alert.fired', `alert ${rule.id} (${rule.displayName}) fired for ${sourceName(incident)}`, 'warning');
  if (!isSnoozed(rule, now)) notify(deps, rule, incident);
}

/** Closes an incident; `recovered` emits `alert.recovered` and may send the recovery notice (rule 5). */
export function closeIncident(
  deps: Deps,
  rule: AlertRow,
  incident: IncidentRow,
  reason: CloseReason,
  value: string | null = incident.lastValue,
  recoveryNotice = true,
): void {
  transact(deps, () => closeNow(deps, rule, incident, reason, value, recoveryNotice));
}

function closeNow(
  deps: Deps,
  rule: AlertRow,
  incident: IncidentRow,
  reason: CloseReason,
  value: string | null,
  recoveryNotice: boolean,
): void {
  // A close stamped in the second after a step, before anything followed it, would move with it later.
  followWallClock(deps);
  const now = deps.clock.now();
  const closed = updateIncident(deps, incident.id, {
    state: 'closed',
    closedAt: now,
    closedReason: reason,
    locked: false,
  });
  clearNotice(deps, rule, incident.sourceId);
  if (reason !== 'recovered') return;
  updateRule(deps, rule.id, { lastRecoveredAt: now });
  emit(deps, 'alert.recovered', incidentEventData(rule, closed));
  log(
    deps,
    rule,
    'alert.recovered',
    `alert ${rule.id} (${rule.displayName}) recovered for ${sourceName(closed)}`,
    'info',
  );
  if (recoveryNotice && rule.recovery && closed.notified && !isSnoozed(rule, now))
    sendRecoveryNotice(deps, rule, closed, contextOf(deps, rule, closed), value);
}

/** The condition stopped holding for `sourceId`: the lock latches, otherwise the incident recovers. */
export function conditionCleared(deps: Deps, rule: AlertRow, sourceId: number, value: string | null): void {
  const open = openIncident(deps, rule.id, sourceId);
  if (!open) return;
  if (rule.lock && open.acknowledgedAt === null) {
    if (!open.locked) updateIncident(deps, open.id, { locked: true });
    return;
  }
  closeIncident(deps, rule, open, 'recovered', value);
}

/** Rule 9: every open incident closes without a recovery notice. */
export function closeAll(deps: Deps, rule: AlertRow, reason: 'rule_deleted' | 'rule_inactive'): void {
  for (const incident of openIncidents(deps, rule.id)) closeIncident(deps, rule, incident, reason);
}

/**
 * Rule 7: open incidents (those of `source` when given, by `_id` or externalId) are acknowledged; one
 * held only by the lock (or a `schedule-missed` one) closes (`acknowledged`), one whose condition still
 * holds stays open.
 */
export function acknowledge(deps: Deps, ruleId: number, by: string, source?: number | string): number {
  const rule = findRule(deps, ruleId);
  if (!rule) return 0;
  const now = deps.clock.now();
  return transact(deps, () => {
    let count = 0;
    for (const incident of openIncidents(deps, rule.id)) {
      if (source !== undefined && incident.sourceId !== source && incident.sourceExternalId !== String(source))
        continue;
      const acked = updateIncident(deps, incident.id, { acknowledgedAt: now, acknowledgedBy: by });
      emit(deps, 'alert.acknowledged', { ...incidentEventData(rule, acked), acknowledgedBy: by });
      count += 1;
      // A missed schedule run is a past fact: nothing keeps holding once someone has seen it.
      if (incident.locked || rule.systemKind === 'schedule-missed') closeIncident(deps, rule, acked, 'acknowledged');
    }
    return count;
  });
}

/** After a snooze ends (or is lifted): open incidents not yet told are notified once (rule 8). */
export function notifyUnnotified(deps: Deps, rule: AlertRow): void {
  for (const incident of openIncidents(deps, rule.id)) if (!incident.notified) notify(deps, rule, incident);
}
