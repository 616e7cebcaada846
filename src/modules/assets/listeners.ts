/**
 * Assets follow their monitoring subsystem (§16 `metadata.subsystemId`/`subsystemName`, §3 rule 9)
 * inside the unit of the subsystem's change (`deps.work.react`): a rename shows in the asset's
 * metadata, a delete unlinks the asset, committed with the cause. Health changes of metrics and of
 * the subsystem's status are stored the same way (§16 rule 1, history.ts).
 */
import type { Deps } from '../../deps';
import { recordMetricChange, recordMonitorStatus } from './history';
import { followSubsystem } from './write';

const UPDATED = ['subsystem.updated', 'player.updated'];
const DELETED = ['subsystem.deleted', 'player.deleted'];
const STATUS = ['subsystem.offline', 'subsystem.online', 'player.offline', 'player.online'];

export function installAssetListeners(deps: Deps): () => void {
  const stopUpdated = deps.work.react(UPDATED, (_type, data) => {
    const changed = Array.isArray(data.changed) ? data.changed : [];
    if (typeof data._id === 'number' && changed.includes('displayName')) followSubsystem(deps, data._id, false);
  });
  const stopDeleted = deps.work.react(DELETED, (_type, data) => {
    if (typeof data._id === 'number') followSubsystem(deps, data._id, true);
  });
  const stopHealth = deps.work.react(['variable.health_changed'], (_type, data) => {
    const { _id, healthState, previousHealthState } = data;
    if (typeof _id === 'number' && typeof healthState === 'number' && typeof previousHealthState === 'number')
      recordMetricChange(deps, _id, healthState, previousHealthState);
  });
  // Only a subsystem that was offline made its assets unknown (a first contact changes nothing).
  const stopStatus = deps.work.react(STATUS, (type, data) => {
    if (typeof data._id !== 'number') return;
    if (type.endsWith('.offline')) recordMonitorStatus(deps, data._id, true);
    else if (data.recovered === true) recordMonitorStatus(deps, data._id, false);
  });
  return () => {
    stopUpdated();
    stopDeleted();
    stopHealth();
    stopStatus();
  };
}
