/**
 * Platform notifications raised from bus events (§7 rule 4). Installed once per Deps by boot; the
 * services that publish never know these listen.
 */
import { isoOrNull } from '../../clock';
import type { Deps } from '../../deps';
import { findSubsystem } from '../subsystems/lookup';
import { clearNotificationsByKey } from './clear';
import { raiseNotification } from './show';

export const subsystemOfflineKey = (id: number) => `subsystem-offline:${id}`;

function subsystemOffline(deps: Deps, id: number): void {
  const subsystem = findSubsystem(deps, id);
  if (!subsystem) return;
  const since = isoOrNull(subsystem.lastContactedAt);
  raiseNotification(deps, {
    key: subsystemOfflineKey(id),
    title: `Subsystem ${subsystem.displayName} is offline`,
    message: since
      ? `No contact from ${subsystem.externalId} since ${since}.`
      : `No contact from ${subsystem.externalId}.`,
    severity: 'error',
    source: { type: 'system' },
    subsystemId: id,
  });
}

/** `subsystem-offline:<_id>`: raised when a subsystem goes offline, cleared when it is back or deleted. */
export function installNotificationListeners(deps: Deps): () => void {
  return deps.bus.subscribe((event) => {
    const id = event.data._id;
    if (typeof id !== 'number') return;
    if (event.type === 'subsystem.offline') subsystemOffline(deps, id);
    else if (event.type === 'subsystem.online' || event.type === 'subsystem.deleted')
      clearNotificationsByKey(deps, subsystemOfflineKey(id));
  });
}
