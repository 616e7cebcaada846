/** Rows → wire for alerts and incidents (§8); the only such mapping. */
import { iso, isoOrNull } from '../../clock';
import type { alertIncidents, alertRules } from '../../db/schema';
import { entityMeta } from '../../http/entity';
import { API_PREFIX } from '../../http/links';
import { type AlertDto, DEFAULT_MESSAGE, type IncidentDto } from './model';

type AlertRow = typeof alertRules.$inferSelect;
type IncidentRow = typeof alertIncidents.$inferSelect;

/** What a rule's wire form shows of its variable. */
export interface VariableInfo {
  displayName: string;
  externalRef: string;
  lastValue: string;
  subsystemId: number;
  subsystemExternalId: string;
  subsystemDisplayName: string;
  /** The asset it is a metric of (§16), or null. */
  assetId: number | null;
}

/** Figures derived from the rule's incidents (SQL). */
export interface AlertExtras {
  state: string;
  openIncidents: number;
  firingSince: number | null;
  isLocked: number;
}

export function toAlertDto(row: AlertRow, extras: AlertExtras, variable: VariableInfo | null): AlertDto {
  return {
    ...entityMeta(row, 'alerts', { history: `${API_PREFIX}/alerts/history?alertId=${row.id}` }),
    displayName: row.displayName,
    description: row.description,
    type: row.type,
    systemKind: row.systemKind,
    variable: row.variableId,
    subsystemId: variable?.subsystemId ?? row.subsystemId,
    subsystemExternalId: variable?.subsystemExternalId ?? null,
    variableDisplayName: variable?.displayName ?? null,
    operator: row.operator,
    value: row.value,
    delaySeconds: row.delaySeconds,
    message: row.message ?? DEFAULT_MESSAGE,
    criticality: row.criticality,
    lifeCycle: row.lifeCycle,
    repeatIntervalSeconds: row.repeatIntervalSeconds,
    lock: row.lock,
    isLocked: extras.isLocked > 0,
    recovery: row.recovery,
    log: row.log,
    active: row.active,
    inactiveReason: row.inactiveReason,
    destinations: row.destinations.map((d) => ({
      ...(d.user === undefined ? {} : { user: d.user }),
      ...(d.role === undefined ? {} : { role: d.role }),
      method: d.method,
    })),
    snoozedUntil: isoOrNull(row.snoozedUntil),
    state: extras.state,
    firingSince: isoOrNull(extras.firingSince),
    lastFiredAt: isoOrNull(row.lastFiredAt),
    lastRecoveredAt: isoOrNull(row.lastRecoveredAt),
    openIncidents: extras.openIncidents,
  };
}

export function toIncidentDto(row: IncidentRow, mail: IncidentDto['mail'] = []): IncidentDto {
  return {
    _id: row.id,
    alertId: row.alertId,
    source: {
      type: row.sourceType,
      id: row.sourceId,
      externalId: row.sourceExternalId,
      displayName: row.sourceDisplayName,
    },
    state: row.state,
    firedAt: iso(row.firedAt),
    closedAt: isoOrNull(row.closedAt),
    closedReason: row.closedReason,
    acknowledgedAt: isoOrNull(row.acknowledgedAt),
    acknowledgedBy: row.acknowledgedBy,
    lastValue: row.lastValue,
    matchCount: row.matchCount,
    notified: row.notified,
    mail,
  };
}

/** §21: the incident data of `alert.fired`, `alert.recovered` and `alert.acknowledged`, with the alert `_id`. */
export function incidentEventData(rule: AlertRow, row: IncidentRow): Record<string, unknown> {
  const dto = toIncidentDto(row);
  return {
    _id: rule.id,
    displayName: rule.displayName,
    incident: {
      _id: dto._id,
      source: dto.source,
      firedAt: dto.firedAt,
      lastValue: dto.lastValue,
      criticality: rule.criticality,
      state: dto.state,
      closedReason: dto.closedReason,
    },
  };
}
