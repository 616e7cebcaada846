/**
 * The notices of §8 rules 4 and 5: a notification per incident (platform key, severity from
 * `criticality`, actions `acknowledge` when the rule locks and `clear`) and an info recovery notice
 * expiring after 24 h, each with mail to the destinations that ask for `email` (every notice: the
 * first, each repeat, the recovery). The mail is queued in the incident's unit and sent after the
 * commit (modules/mail); its recipients are the addresses of the users named and of the users holding
 * the roles named, enabled and with an address, each once.
 *
 * Audience (`roleIds` of the notification): the roles of the destinations that ask for
 * `notification` (a user destination adds that user's roles); with no such destination, the roles
 * holding `alerts:read`. Holders of `users:write` see every notification anyway (§7 rule 6).
 */

import { getSystemName, getTimezone } from '../../core/settings';
import type { Deps } from '../../deps';
import { queueMail } from '../mail/service';
import { clearNotificationsByKey } from '../notifications/clear';
import type { NotificationActionWrite } from '../notifications/model';
import { raiseNotification } from '../notifications/show';
import { roleIdsHolding } from '../roles/service';
import { formatLocal } from '../schedule/engine/tz';
import { mailAddressesOf, roleIdsOf } from '../users/accounts';
import { DEFAULT_MESSAGE } from './model';
import type { AlertRow, IncidentRow } from './store';

const DAY_MS = 24 * 3600_000;

/** The notification key of an incident (§7 rule 4). */
export function noticeKey(rule: AlertRow, sourceId: number): string {
  if (rule.systemKind === 'subsystem-offline') return `subsystem-offline:${sourceId}`;
  if (rule.systemKind === 'webhook-disabled') return `webhook-disabled:${sourceId}`;
  if (rule.systemKind === 'schedule-missed') return 'schedule-missed';
  if (rule.systemKind === 'storage-low') return 'storage-low';
  if (rule.systemKind === 'license-expiry') return 'license:expiring';
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
        message: `${incident.lastValue} scheduled run(s) were missed while the daemon was down or when its clock stepped ahead; see GET /api/v1/schedule/runs?status=missed.`,
      };
    case 'storage-low':
      return {
        title: 'Media storage is low',
        message: `${incident.lastValue} free for media; uploads are refused below the media.minFreeBytes setting. Empty the trash or remove media.`,
      };
    case 'license-expiry': {
      const days = incident.lastValue === '1' ? '1 day' : `${incident.lastValue} days`;
      return {
        title: `The license expires in ${days}`,
        message: `License ${incident.sourceExternalId ?? ''} expires in ${days}. Install a renewed license before then (PUT /api/v1/license); nothing stops working when it expires.`,
      };
    }
    case 'backup-failed':
      return {
        title: `Backup ${name} failed`,
        message: `${incident.lastValue ?? 'The backup failed.'} See GET /api/v1/backups?status=failed.`,
      };
    case 'variable-health':
      return { title: `${rule.displayName}: ${name}`, message: `${name} reports health ${incident.lastValue}.` };
    case 'asset-health':
      return {
        title: `${rule.displayName}: ${name}`,
        message: `${name} is in ${incident.lastValue}; its metrics and their changes: GET /api/v1/assets/${incident.sourceId}.`,
      };
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

/** The addresses of the rule's `email` destinations. */
function mailRecipients(deps: Deps, rule: AlertRow): string[] {
  const users: number[] = [];
  const roles: number[] = [];
  for (const d of rule.destinations) {
    if (!d.method.includes('email')) continue;
    if (d.user !== undefined) users.push(d.user);
    if (d.role !== undefined) roles.push(d.role);
  }
  return mailAddressesOf(deps, users, roles);
}

/** Queues the notice's mail: subject `[<systemName>] <title>`, the message and what the incident is. */
function mailNotice(
  deps: Deps,
  rule: AlertRow,
  incident: IncidentRow,
  kind: 'notice' | 'recovery',
  text: { title: string; message: string },
): void {
  const recipients = mailRecipients(deps, rule);
  if (recipients.length === 0) return;
  const system = getSystemName(deps);
  const tz = getTimezone(deps);
  const name = incident.sourceDisplayName ?? incident.sourceExternalId ?? String(incident.sourceId);
  const lines = [
    text.message,
    '',
    `Alert: ${rule.displayName} (${rule.criticality})`,
    `Source: ${incident.sourceType} ${name}`,
    `Fired: ${formatLocal(tz, incident.firedAt)} (${tz})`,
    ...(kind === 'recovery' && incident.closedAt !== null
      ? [`Recovered: ${formatLocal(tz, incident.closedAt)} (${tz})`]
      : []),
    '',
    `-- ${system}`,
  ];
  queueMail(deps, {
    kind,
    alertId: rule.id,
    incidentId: incident.id,
    recipients,
    subject: `[${system}] ${text.title}`.replace(/[\r\n]+/g, ' ').slice(0, 250),
    body: lines.join('\n'),
  });
}

/** Raises (or raises again) the incident's notification, and queues its mail. */
export function sendNotice(deps: Deps, rule: AlertRow, incident: IncidentRow, ctx: NoticeContext): void {
  const actions: NotificationActionWrite[] = [];
  if (rule.lock) actions.push({ id: 'acknowledge', label: 'Acknowledge', type: 'acknowledge', clears: true });
  actions.push({ id: 'clear', label: 'Clear', type: 'clear', clears: true });
  clearNotificationsByKey(deps, recoveryKey(rule, incident.sourceId));
  const text = texts(rule, incident, ctx);
  raiseNotification(deps, {
    key: noticeKey(rule, incident.sourceId),
    ...text,
    severity: rule.criticality as 'info' | 'warning' | 'error' | 'critical',
    source: { type: 'alert', id: rule.id },
    subsystemId: ctx.subsystemId,
    roleIds: audience(deps, rule),
    actions,
    expiresAt: null,
  });
  mailNotice(deps, rule, incident, 'notice', text);
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
  const text = {
    title:
      rule.systemKind === 'subsystem-offline'
        ? `${sourceNoun(incident)} ${name} is back online`
        : rule.systemKind === 'license-expiry'
          ? 'The license was renewed'
          : `Recovered: ${title}`.slice(0, 200),
    message:
      rule.type === 'variable'
        ? render('{alert}: {variable} is {value}', rule, incident, ctx.subsystemName, value)
        : `${title} is over.`,
  };
  raiseNotification(deps, {
    key: recoveryKey(rule, incident.sourceId),
    ...text,
    severity: 'info',
    source: { type: 'alert', id: rule.id },
    subsystemId: ctx.subsystemId,
    roleIds: audience(deps, rule),
    actions: [{ id: 'clear', label: 'Clear', type: 'clear', clears: true }],
    expiresAt: deps.clock.now() + DAY_MS,
  });
  mailNotice(deps, rule, incident, 'recovery', text);
}

export function clearNotice(deps: Deps, rule: AlertRow, sourceId: number): void {
  clearNotificationsByKey(deps, noticeKey(rule, sourceId));
}
