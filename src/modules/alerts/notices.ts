/**
 * The notices of §8 rules 4 and 5: a notification per incident (platform key, severity from
 * `criticality`, actions `acknowledge` when the rule locks and `clear`) and an info recovery notice
 * expiring after 24 h. Mail to destinations is not sent by this build (no mailer yet).
 *
 * Audience (`roleIds` of the notification): the roles of the destinations that ask for
 * `notification` (a user destination adds that user's roles); with no such destination, the roles
 * holding `alerts:read`. Holders of `users:write` see every notification anyway (§7 rule 6).
 */
import type { Deps } from '../../deps';
import { clearNotificationsByKey } from '../notifications/clear';
import type { NotificationActionWrite } from '../notifications/model';
import { raiseNotification } from '../notifications/show';
import { roleIdsHolding } from '../roles/service';
import { roleIdsOf } from '../users/accounts';
import { DEFAULT_MESSAGE } from './model';
import type { AlertRow, IncidentRow } from './store';

const DAY_MS = 24 * 3600_000;

/** The notification key of an incident (§7 rule 4). */
export function noticeKey(rule: AlertRow, sourceId: number): string {
  if (rule.systemKind === 'subsystem-offline') return `subsystem-offline:${sourceId}`;
  if (rule.systemKind === 'webhook-disabled') return `webhook-disabled:${sourceId}`;
  if (rule.systemKind === 'schedule-missed') return 'schedule-missed';
  if (rule.systemKind === 'storage-low') return 'storage-low';
  return `alert:${rule.id}:${sourceId}`;
}

export const recoveryKey = (rule: AlertRow, sourceId: number) => `${noticeKey(rule, sourceId)}:recovered`;

/** `{alert}` `{variable}` `{value}` `{subsystem}` filled in. */
function render(template: string, rule: AlertRow, incident: IncidentRow, subsystem: string, value: string | null) {
  return template
    .replaceAll('{alert}', rule.displayName)
    .replaceAll('{variable}', incident.sourceDisplayName ?? incident.sourceExternalId ?? String(incident.sourceId))
    .replaceAll('{value}', value ?? '')
    .replaceAll('{subsystem}', subsystem);
}

export interface NoticeContext {
  /** The subsystem the incident is about (its notification names it). */
  subsystemId: number | null;
  subsystemName: string;
}

/** How a `subsystem-offline` notice names its source: players use the rule too (§13 rule 1). */
const sourceNoun = (incident: IncidentRow): string => (incident.sourceType === 'player' ? 'Player' : 'Subsystem');

function texts(rule: AlertRow, incident: IncidentRow, ctx: NoticeContext): { title: string; message: string } {
  const name = incident.sourceDisplayName ?? incident.sourceExternalId ?? String(incident.sourceId);
  switch (rule.systemKind) {
    case 'subsystem-offline':
      return {
        title: `${sourceNoun(incident)} ${name} is offline`,
        message: incident.lastValue
          ? `No contact from ${incident.sourceExternalId} since ${incident.lastValue}.`
          : `No contact from ${incident.sourceExternalId}.`,
      };
    case 'webhook-disabled':
      return { title: `Webhook ${name} is disabled`, message: incident.lastValue ?? '' };
    case 'schedule-missed':
      return {
        title: 'Scheduled runs missed',
        message: `${incident.lastValue} scheduled run(s) were missed while the daemon was down; see GET /api/v1/schedule/runs?status=missed.`,
      };
    case 'storage-low':
      return {
        title: 'Media storage is low',
        message: `${incident.lastValue} free for media; uploads are refused below the media.minFreeBytes setting. Empty the trash or remove media.`,
      };
    case 'variable-health':
      return { title: `${rule.displayName}: ${name}`, message: `${name} reports health ${incident.lastValue}.` };
    default:
      return {
        title: rule.displayName,
        message: render(rule.message ?? DEFAULT_MESSAGE, rule, incident, ctx.subsystemName, incident.lastValue),
      };
  }
}

function audience(deps: Deps, rule: AlertRow): number[] {
  const ids = new Set<number>();
  for (const d of rule.destinations) {
    if (!d.method.includes('notification')) continue;
    if (d.role !== undefined) ids.add(d.role);
    if (d.user !== undefined) for (const r of roleIdsOf(deps, d.user)) ids.add(r);
  }
  if (ids.size > 0) return [...ids];
  return roleIdsHolding(deps, 'alerts:read');
}

/** Raises (or raises again) the incident's notification. */
export function sendNotice(deps: Deps, rule: AlertRow, incident: IncidentRow, ctx: NoticeContext): void {
  const actions: NotificationActionWrite[] = [];
  if (rule.lock) actions.push({ id: 'acknowledge', label: 'Acknowledge', type: 'acknowledge', clears: true });
  actions.push({ id: 'clear', label: 'Clear', type: 'clear', clears: true });
  clearNotificationsByKey(deps, recoveryKey(rule, incident.sourceId));
  raiseNotification(deps, {
    key: noticeKey(rule, incident.sourceId),
    ...texts(rule, incident, ctx),
    severity: rule.criticality as 'info' | 'warning' | 'error' | 'critical',
    source: { type: 'alert', id: rule.id },
    subsystemId: ctx.subsystemId,
    roleIds: audience(deps, rule),
    actions,
    expiresAt: null,
  });
}

/** The recovery notice (rule 5): info, expiring after 24 h. */
export function sendRecoveryNotice(
  deps: Deps,
  rule: AlertRow,
  incident: IncidentRow,
  ctx: NoticeContext,
  value: string | null,
): void {
  const { title } = texts(rule, incident, ctx);
  const name = incident.sourceDisplayName ?? incident.sourceExternalId ?? String(incident.sourceId);
  raiseNotification(deps, {
    key: recoveryKey(rule, incident.sourceId),
    title:
      rule.systemKind === 'subsystem-offline'
        ? `${sourceNoun(incident)} ${name} is back online`
        : `Recovered: ${title}`.slice(0, 200),
    message:
      rule.type === 'variable'
        ? render('{alert}: {variable} is {value}', rule, incident, ctx.subsystemName, value)
        : `${title} is over.`,
    severity: 'info',
    source: { type: 'alert', id: rule.id },
    subsystemId: ctx.subsystemId,
    roleIds: audience(deps, rule),
    actions: [{ id: 'clear', label: 'Clear', type: 'clear', clears: true }],
    expiresAt: deps.clock.now() + DAY_MS,
  });
}

export function clearNotice(deps: Deps, rule: AlertRow, sourceId: number): void {
  clearNotificationsByKey(deps, noticeKey(rule, sourceId));
}
