/**
 * Assets follow their monitoring subsystem (§16 `metadata.subsystemId`/`subsystemName`, §3 rule 9)
 * inside the unit of the subsystem's change (`deps.work.react`): a rename shows in the asset's
 * metadata, a delete unlinks the asset, committed with the cause. Health changes of metrics and of
 * the subsystem's status are stored the same way (§16 rule 1, history.ts), and so is every other change
 * of what an asset's metrics make of it (a metric attached, detached, deleted, switched on or off).
 */
import type { Deps } from '../../deps';
import { reconcileAllAssets, reconcileAssets, recordMetricChange, recordMonitorStatus } from './history';
import { followSubsystem } from './write';

const UPDATED = ['subsystem.updated', 'player.updated'];
const DELETED = ['subsystem.deleted', 'player.deleted'];
const STATUS = ['subsystem.offline', 'subsystem.online', 'player.offline', 'player.online'];
const VARIABLES = ['variable.created', 'variable.updated', 'variable.deleted'];
/** The variable fields that decide what a metric brings to its asset's state, besides its health. */
const MEMBERSHIP = ['assetId', 'healthEnabled', 'availableInSubsystem'];

/** The assets a variable event concerns: the one it names now and the one it left (`previousAssetId`). */
function assetsOfVariableEvent(type: string, data: Record<string, unknown>): number[] {
  const changed = Array.isArray(data.changed) ? data.changed : [];
  if (type === 'variable.updated' && !changed.some((c) => MEMBERSHIP.includes(c))) return [];
  return [data.assetId, data.previousAssetId].filter((id): id is number => typeof id === 'number');
}

export function installAssetListeners(deps: Deps): () => void {
  const stopUpdated = deps.work.react(UPDATED, (_type, data) => {
    const changed = Array.isArray(data.changed) ? data.changed : [];
    if (typeof data._id === 'number' && changed.includes('displayName')) followSubsystem(deps, data._id, false);
  });
  const stopDeleted = deps.work.react(DELETED, (_type, data) => {
    if (typeof data._id !== 'number') return;
    followSubsystem(deps, data._id, true);
    // Its variables (and its players') went by the cascade, no event each: the assets they served
    // follow, once per delete. Every subsystem has variables (its platform ones), so every delete
    // that carries counts reconciles; a player deleted with its container carries none (the
    // container's event covers it), so a container's delete reconciles once, not once per player.
    if (data.counts) reconcileAllAssets(deps);
  });
  // A metric attached, detached, deleted, switched on or off: its assets' states follow.
  const stopVariables = deps.work.react(VARIABLES, (type, data) => {
    const ids = assetsOfVariableEvent(type, data);
    if (ids.length > 0) reconcileAssets(deps, ids);
  });
  const stopHealth = deps.work.react(['variable.health_changed'], (_type, data) => {
    const { _id, healthState, previousHealthState } = data;
    if (typeof _id === 'number' && typeof healthState === 'number' && typeof previousHealthState === 'number')
      recordMetricChange(deps, _id, healthState, previousHealthState);
  });
  const stopStatus = deps.work.react(STATUS, (_type, data) => {
    if (typeof data._id === 'number') recordMonitorStatus(deps, data._id);
  });
  return () => {
    stopUpdated();
    stopDeleted();
    stopHealth();
    stopStatus();
    stopVariables();
  };
}
