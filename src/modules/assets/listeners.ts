/**
 * Assets follow their monitoring subsystem (§16 `metadata.subsystemId`/`subsystemName`, §3 rule 9)
 * inside the unit of the subsystem's change (`deps.work.react`): a rename shows in the asset's
 * metadata, a delete unlinks the asset, committed with the cause.
 */
import type { Deps } from '../../deps';
import { followSubsystem } from './write';

const UPDATED = ['subsystem.updated', 'player.updated'];
const DELETED = ['subsystem.deleted', 'player.deleted'];

export function installAssetListeners(deps: Deps): () => void {
  const stopUpdated = deps.work.react(UPDATED, (_type, data) => {
    const changed = Array.isArray(data.changed) ? data.changed : [];
    if (typeof data._id === 'number' && changed.includes('displayName')) followSubsystem(deps, data._id, false);
  });
  const stopDeleted = deps.work.react(DELETED, (_type, data) => {
    if (typeof data._id === 'number') followSubsystem(deps, data._id, true);
  });
  return () => {
    stopUpdated();
    stopDeleted();
  };
}
