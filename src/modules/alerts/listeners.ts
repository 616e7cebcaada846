/**
 * What alerts hear (installed by boot, so tests get it too): value writes of watched variables,
 * variables and subsystems going away, the platform conditions of the system rules, and the
 * `acknowledge` button of an alert notification (§7 rule 3). Publishers never know these listen.
 *
 * Health changes (a subsystem offline or online, a variable's or an asset's health) are heard inside the unit that
 * reports them (`deps.work.react`, db/unit-of-work.ts): the incident and its notification commit with
 * the transition. A venue's power cut turns thousands of subsystems offline (100 per transaction,
 * one per turn of the event loop) and back online in a few writer batches; their incidents share those
 * transactions instead of one each. A variable created (a driver registering one again) re-links the
 * rules that kept its subsystem externalId + externalRef in the same unit (relink.ts), and a
 * subsystem's new externalId is kept by its rules there too. The rest is heard on the bus, after the commit.
 */
import { and, eq, isNotNull } from 'drizzle-orm';
import { alertRules } from '../../db/schema';
import type { Deps } from '../../deps';
import type { BusEvent } from '../../realtime/bus';
import { emit, transact } from '../../realtime/emit';
import { closeAll } from './engine';
import { dropAlertIndex, onVariableValue } from './evaluate';
import { followSubsystemExternalId, relinkRules } from './relink';
import { acknowledgeByNoticeKey } from './service';
import { variableInfo } from './store';
import {
  onAssetGone,
  onAssetHealth,
  onBackupCompleted,
  onBackupFailed,
  onLicenseChanged,
  onLicenseExpiring,
  onScheduleRunMissed,
  onSubsystemDeleted,
  onSubsystemOffline,
  onSubsystemOnline,
  onVariableGoneHealth,
  onVariableHealth,
  onWebhookDeleted,
  onWebhookDisabled,
  onWebhookUpdated,
} from './system';

/** Rules whose variable no longer exists are deactivated (`variable_missing`), never deleted. */
function deactivateMissing(deps: Deps): void {
  const rules = deps.db
    .select()
    .from(alertRules)
    .where(and(eq(alertRules.type, 'variable'), eq(alertRules.active, true), isNotNull(alertRules.variableId)))
    .all();
  let changed = false;
  transact(deps, () => {
    for (const rule of rules) {
      if (variableInfo(deps, rule.variableId) !== null) continue;
      deps.db
        .update(alertRules)
        .set({ active: false, inactiveReason: 'variable_missing', pendingSince: null, updatedAt: deps.clock.now() })
        .where(eq(alertRules.id, rule.id))
        .run();
      closeAll(deps, rule, 'rule_inactive');
      emit(deps, 'alert.updated', { _id: rule.id, changed: ['active', 'inactiveReason'] });
      changed = true;
    }
  });
  if (changed) dropAlertIndex(deps);
}

function handle(deps: Deps, event: BusEvent): void {
  if (event.type === 'schedule.run.missed') {
    onScheduleRunMissed(deps);
    return;
  }
  const id = event.data._id;
  if (typeof id !== 'number') return;
  switch (event.type) {
    case 'variable.changed':
      onVariableValue(deps, id, typeof event.data.lastValue === 'string' ? event.data.lastValue : '');
      return;
    case 'variable.deleted':
      onVariableGoneHealth(deps, id);
      deactivateMissing(deps);
      return;
    case 'subsystem.deleted':
    case 'player.deleted':
      onSubsystemDeleted(deps, id);
      deactivateMissing(deps);
      return;
    case 'webhook.disabled':
      onWebhookDisabled(deps, id, typeof event.data.disabledReason === 'string' ? event.data.disabledReason : null);
      return;
    case 'webhook.updated':
      onWebhookUpdated(deps, id);
      return;
    case 'backup.failed': {
      const job = event.data.job as { error?: unknown } | null;
      const name = typeof event.data.displayName === 'string' ? event.data.displayName : null;
      onBackupFailed(deps, id, name, typeof job?.error === 'string' ? job.error : null);
      return;
    }
    case 'backup.completed':
      onBackupCompleted(deps);
      return;
    case 'webhook.deleted':
      onWebhookDeleted(deps, id);
      return;
    case 'asset.deleted':
      onAssetGone(deps, id);
      return;
    case 'notification.action':
      if (event.data.actionType === 'acknowledge' && typeof event.data.key === 'string')
        acknowledgeByNoticeKey(deps, event.data.key, typeof event.data.by === 'string' ? event.data.by : 'system');
      return;
  }
}

/** A health change, inside the unit that reports it. */
function onHealth(deps: Deps, type: string, data: Record<string, unknown>): void {
  const id = data._id;
  if (typeof id !== 'number') return;
  if (type === 'subsystem.offline' || type === 'player.offline') onSubsystemOffline(deps, id);
  else if (type === 'subsystem.online' || type === 'player.online') onSubsystemOnline(deps, id);
  else if (type === 'asset.health_changed' && typeof data.healthState === 'string')
    onAssetHealth(deps, id, data.healthState);
  else if (typeof data.healthState === 'number') onVariableHealth(deps, id, data.healthState);
}

/** Players use the `subsystem-offline` rule too, with the player as source (§13 rule 1). */
const HEALTH_EVENTS = [
  'subsystem.offline',
  'subsystem.online',
  'player.offline',
  'player.online',
  'variable.health_changed',
  'asset.health_changed',
] as const;

const LICENSE_EVENTS = ['license.expiring', 'license.changed'] as const;

export function installAlertListeners(deps: Deps): () => void {
  const offBus = deps.bus.subscribe((event) => handle(deps, event));
  const offUnit = deps.work.react(HEALTH_EVENTS, (type, data) => onHealth(deps, type, data));
  // The licence's notices commit with the check that announces them (modules/license/notices.ts).
  const offLicense = deps.work.react(LICENSE_EVENTS, (type, data) =>
    type === 'license.expiring' ? onLicenseExpiring(deps, data) : onLicenseChanged(deps, data.status),
  );
  const offCreated = deps.work.react(['variable.created'], (_type, data) => {
    const { _id, subsystemExternalId, externalRef } = data;
    if (typeof _id === 'number' && typeof subsystemExternalId === 'string' && typeof externalRef === 'string')
      relinkRules(deps, _id, subsystemExternalId, externalRef);
  });
  const offRenamed = deps.work.react(['subsystem.updated', 'player.updated'], (_type, data) => {
    const changed = Array.isArray(data.changed) ? data.changed : [];
    if (typeof data._id === 'number' && changed.includes('externalId')) followSubsystemExternalId(deps, data._id);
  });
  return () => {
    offBus();
    offUnit();
    offLicense();
    offCreated();
    offRenamed();
  };
}
