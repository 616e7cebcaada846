/**
 * System rules (§8 rule 10): one per `systemKind`, created at boot when missing, their condition
 * fixed. Wired today: `subsystem-offline` (subsystem.offline / .online / .deleted, and the same of
 * players, whose incidents name the player as source of type `player`, §13 rule 1), `webhook-disabled`
 * (webhook.disabled; closed by a webhook.updated that leaves it active, or webhook.deleted),
 * `variable-health` (variable.health_changed: a state above 0 opens, 0 closes) and `schedule-missed`
 * (the schedule.run.missed records of one daemon start: one incident with their count, §11.6 rule 15).
 * `storage-low` (the alerts.storage job: free space for media under twice `media.minFreeBytes`
 * opens, back above closes). `license-expiry` (§19 rule 4: `license.expiring` opens the incident
 * and notifies, each later one notifies again; `license.changed` to a licence with more than 30 days
 * left, or perpetual, recovers it, and to none closes it without a recovery notice).
 * `backup-failed` exists but has no source yet. `asset-health` (asset.health_changed: warning or
 * error opens, healthy recovers, unknown or the asset deleted closes without a recovery notice): §8
 * rule 10 names the asset as a source of system rules and its list of kinds has none for it, so this
 * one is added. While it is active, `variable-health` leaves the metrics of an asset to it (one
 * incident per projector, not one per fan and sensor of it).
 */

import { getSettingGroup } from '../../core/settings';
import { findSubsystem } from '../../core/subsystems';
import { alertRules } from '../../db/schema';
import type { Deps } from '../../deps';
import { AppError } from '../../http/errors';
import { findAsset } from '../assets/service';
import { mediaFreeBytes } from '../objects/service';
import { getWebhook } from '../webhooks/service';
import { closeIncident, conditionCleared, fire, isSnoozed, notify } from './engine';
import { type Criticality, SYSTEM_KINDS, type SystemKind } from './model';
import { openIncident, openIncidents, systemRule, variableInfo } from './store';

const DEFAULTS: Record<SystemKind, { displayName: string; criticality: Criticality }> = {
  'subsystem-offline': { displayName: 'Subsystem offline', criticality: 'error' },
  'variable-health': { displayName: 'Variable health', criticality: 'warning' },
  'backup-failed': { displayName: 'Backup failed', criticality: 'error' },
  'storage-low': { displayName: 'Storage low', criticality: 'warning' },
  'license-expiry': { displayName: 'License expiry', criticality: 'warning' },
  'webhook-disabled': { displayName: 'Webhook disabled', criticality: 'warning' },
  'schedule-missed': { displayName: 'Schedule run missed', criticality: 'warning' },
  'asset-health': { displayName: 'Asset health', criticality: 'warning' },
};

/**
 * Creates the missing system rules. Idempotent. Their sources log for themselves (the health monitor
 * logs offline/online), so system rules write no log entries of their own (`log` false, fixed).
 */
export function ensureSystemRules(deps: Deps): void {
  const now = deps.clock.now();
  for (const kind of SYSTEM_KINDS) {
    if (systemRule(deps, kind)) continue;
    deps.db
      .insert(alertRules)
      .values({
        ...DEFAULTS[kind],
        type: 'system',
        systemKind: kind,
        log: false,
        destinations: [],
        createdAt: now,
        updatedAt: now,
      })
      .onConflictDoNothing()
      .run();
  }
}

function activeRule(deps: Deps, kind: SystemKind) {
  const rule = systemRule(deps, kind);
  return rule?.active ? rule : undefined;
}

/** Closes the open incident of a source that went away (recovered, without a recovery notice). */
function sourceGone(deps: Deps, kind: SystemKind, sourceId: number): void {
  const rule = systemRule(deps, kind);
  if (!rule) return;
  const open = openIncident(deps, rule.id, sourceId);
  if (open) closeIncident(deps, rule, open, 'recovered', open.lastValue, false);
}

export function onSubsystemOffline(deps: Deps, id: number): void {
  const rule = activeRule(deps, 'subsystem-offline');
  const subsystem = findSubsystem(deps, id);
  if (!rule || !subsystem) return;
  const since = subsystem.lastContactedAt === null ? null : new Date(subsystem.lastContactedAt).toISOString();
  fire(
    deps,
    rule,
    { type: subsystem.kind, id, externalId: subsystem.externalId, displayName: subsystem.displayName },
    since,
  );
}

export function onSubsystemOnline(deps: Deps, id: number): void {
  const rule = activeRule(deps, 'subsystem-offline');
  if (rule) conditionCleared(deps, rule, id, null);
}

export function onSubsystemDeleted(deps: Deps, id: number): void {
  sourceGone(deps, 'subsystem-offline', id);
}

/** The webhook's name and whether it is active; null when it is gone. */
function webhookInfo(deps: Deps, id: number): { displayName: string; active: boolean } | null {
  try {
    const w = getWebhook(deps, String(id));
    return { displayName: w.displayName, active: w.active };
  } catch (err) {
    if (err instanceof AppError && err.errorCode === 'not_found') return null;
    throw err;
  }
}

/** `webhook.disabled` `{_id, disabledReason}`: the reason is the incident's value. */
export function onWebhookDisabled(deps: Deps, id: number, reason: string | null): void {
  const rule = activeRule(deps, 'webhook-disabled');
  const hook = webhookInfo(deps, id);
  if (!rule || !hook) return;
  fire(deps, rule, { type: 'webhook', id, externalId: null, displayName: hook.displayName }, reason);
}

/** `webhook.updated`: an active webhook has recovered. */
export function onWebhookUpdated(deps: Deps, id: number): void {
  const rule = activeRule(deps, 'webhook-disabled');
  if (rule && webhookInfo(deps, id)?.active === true) conditionCleared(deps, rule, id, null);
}

export function onWebhookDeleted(deps: Deps, id: number): void {
  sourceGone(deps, 'webhook-disabled', id);
}

export function onVariableHealth(deps: Deps, id: number, healthState: number): void {
  const rule = activeRule(deps, 'variable-health');
  if (!rule) return;
  if (healthState > 0) {
    const v = variableInfo(deps, id);
    if (!v) return;
    if (v.assetId !== null && activeRule(deps, 'asset-health')) return;
    const label = healthState === 1 ? 'warning' : 'error';
    fire(deps, rule, { type: 'variable', id, externalId: v.externalRef, displayName: v.displayName }, label);
  } else conditionCleared(deps, rule, id, String(healthState));
}

export function onVariableGoneHealth(deps: Deps, id: number): void {
  sourceGone(deps, 'variable-health', id);
}

/**
 * `asset.health_changed` (§16): warning or error opens (or raises) the asset's incident, healthy
 * recovers it, unknown closes it silently. The asset is read only to name a firing incident.
 */
export function onAssetHealth(deps: Deps, id: number, healthState: string): void {
  const rule = activeRule(deps, 'asset-health');
  if (!rule) return;
  if (healthState === 'healthy') conditionCleared(deps, rule, id, healthState);
  else if (healthState !== 'warning' && healthState !== 'error') sourceGone(deps, 'asset-health', id);
  else {
    const asset = findAsset(deps, id);
    if (asset)
      fire(
        deps,
        rule,
        { type: 'asset', id, externalId: asset.externalRef, displayName: asset.displayName },
        healthState,
      );
  }
}

export function onAssetGone(deps: Deps, id: number): void {
  sourceGone(deps, 'asset-health', id);
}

/**
 * `schedule.run.missed`: the runner records a daemon start's missed runs in one synchronous pass, so
 * the events of one turn are counted and become one incident (source: that moment, so each start has
 * its own) with one notice, key `schedule-missed`. A missed run is a past fact, not a condition that
 * clears: the incident stays open until acknowledged, which closes it (rule 7).
 */
export function onScheduleRunMissed(deps: Deps): void {
  const batch = deps.alerts.missedBatch;
  if (batch) {
    batch.count++;
    return;
  }
  const fresh = { count: 1 };
  deps.alerts.missedBatch = fresh;
  queueMicrotask(() => {
    deps.alerts.missedBatch = null;
    const rule = activeRule(deps, 'schedule-missed');
    if (!rule) return;
    const at = Math.floor(deps.clock.now() / 1000);
    fire(deps, rule, { type: 'schedule', id: at, externalId: null, displayName: 'Schedule' }, String(fresh.count));
  });
}

/**
 * `backup.failed` (§17 rule 2): the failed backup is the source, its error the value. A failure is a
 * past fact: the incident stays open until acknowledged, or until a later backup completes
 * (`onBackupCompleted`), which shows backups work again.
 */
export function onBackupFailed(deps: Deps, id: number, displayName: string | null, error: string | null): void {
  const rule = activeRule(deps, 'backup-failed');
  if (!rule) return;
  fire(deps, rule, { type: 'backup', id, externalId: null, displayName }, error);
}

/** `backup.completed`: every open `backup-failed` incident recovers. */
export function onBackupCompleted(deps: Deps): void {
  const rule = activeRule(deps, 'backup-failed');
  if (!rule) return;
  for (const incident of openIncidents(deps, rule.id)) conditionCleared(deps, rule, incident.sourceId, null);
}

/** The one source of `storage-low`: the disk that holds the media. */
const STORAGE_SOURCE = { type: 'storage', id: 1, externalId: null, displayName: 'Media storage' } as const;

const gib = (bytes: number): string => `${(bytes / 1024 ** 3).toFixed(1)} GiB`;

/**
 * `storage-low` (§12 rule 8): free space for media under twice `media.minFreeBytes` opens the
 * incident (value: the free space), space above it again closes it. Run by the alerts.storage job.
 */
export function checkStorage(deps: Deps): void {
  const rule = activeRule(deps, 'storage-low');
  if (!rule) return;
  const free = mediaFreeBytes(deps);
  if (free < 2 * getSettingGroup(deps, 'media').minFreeBytes) fire(deps, rule, STORAGE_SOURCE, gib(free));
  else conditionCleared(deps, rule, STORAGE_SOURCE.id, gib(free));
}

/** The one source of `license-expiry`: the installed licence. */
const LICENSE_SOURCE_ID = 1;

/**
 * `license.expiring` `{daysRemaining, licenseId}` (§19 rule 4): opens the incident with its notice,
 * or, while it is open, sends the notice again with the days now left (the milestones 30, 14, 7 and
 * 1 each notify, where an open incident would otherwise only count).
 */
export function onLicenseExpiring(deps: Deps, data: Record<string, unknown>): void {
  const rule = activeRule(deps, 'license-expiry');
  if (!rule) return;
  const days = typeof data.daysRemaining === 'number' ? String(data.daysRemaining) : null;
  const licenseId = typeof data.licenseId === 'string' ? data.licenseId : null;
  const wasOpen = openIncident(deps, rule.id, LICENSE_SOURCE_ID) !== undefined;
  fire(deps, rule, { type: 'license', id: LICENSE_SOURCE_ID, externalId: licenseId, displayName: 'License' }, days);
  const open = openIncident(deps, rule.id, LICENSE_SOURCE_ID);
  if (wasOpen && open && !isSnoozed(rule, deps.clock.now())) notify(deps, rule, open);
}

/** `license.changed`: a licence far from expiry recovers the incident; no licence closes it quietly. */
export function onLicenseChanged(deps: Deps, status: unknown): void {
  if (status === 'missing') sourceGone(deps, 'license-expiry', LICENSE_SOURCE_ID);
  else if (status === 'valid') {
    const rule = activeRule(deps, 'license-expiry');
    if (rule) conditionCleared(deps, rule, LICENSE_SOURCE_ID, null);
  }
}
