/**
 * System rules (§8 rule 10): one per `systemKind`, created at boot when missing, their condition
 * fixed. Wired today: `subsystem-offline` (subsystem.offline / .online / .deleted), `webhook-disabled`
 * (webhook.disabled; closed by webhook.updated with active true or webhook.deleted) and
 * `variable-health` (variable.health_changed: a state above 0 opens, 0 closes). `backup-failed`,
 * `storage-low`, `license-expiry` and `schedule-missed` exist but have no source in this build yet.
 */
import { alertRules } from '../../db/schema';
import type { Deps } from '../../deps';
import { findSubsystem } from '../subsystems/lookup';
import { closeIncident, conditionCleared, fire } from './engine';
import { type Criticality, SYSTEM_KINDS, type SystemKind } from './model';
import { openIncident, systemRule, variableInfo } from './store';

const DEFAULTS: Record<SystemKind, { displayName: string; criticality: Criticality }> = {
  'subsystem-offline': { displayName: 'Subsystem offline', criticality: 'error' },
  'variable-health': { displayName: 'Variable health', criticality: 'warning' },
  'backup-failed': { displayName: 'Backup failed', criticality: 'error' },
  'storage-low': { displayName: 'Storage low', criticality: 'warning' },
  'license-expiry': { displayName: 'License expiry', criticality: 'warning' },
  'webhook-disabled': { displayName: 'Webhook disabled', criticality: 'warning' },
  'schedule-missed': { displayName: 'Schedule run missed', criticality: 'warning' },
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
    { type: 'subsystem', id, externalId: subsystem.externalId, displayName: subsystem.displayName },
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

export function onWebhookDisabled(deps: Deps, data: Record<string, unknown>): void {
  const rule = activeRule(deps, 'webhook-disabled');
  const id = data._id;
  if (!rule || typeof id !== 'number') return;
  const name =
    typeof data.displayName === 'string' ? data.displayName : typeof data.name === 'string' ? data.name : null;
  const reason = typeof data.disabledReason === 'string' ? data.disabledReason : null;
  fire(deps, rule, { type: 'webhook', id, externalId: null, displayName: name }, reason);
}

export function onWebhookBack(deps: Deps, id: number): void {
  const rule = activeRule(deps, 'webhook-disabled');
  if (rule) conditionCleared(deps, rule, id, null);
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
    const label = healthState === 1 ? 'warning' : 'error';
    fire(deps, rule, { type: 'variable', id, externalId: v.externalRef, displayName: v.displayName }, label);
  } else conditionCleared(deps, rule, id, String(healthState));
}

export function onVariableGoneHealth(deps: Deps, id: number): void {
  sourceGone(deps, 'variable-health', id);
}
