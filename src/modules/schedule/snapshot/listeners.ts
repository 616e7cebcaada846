/**
 * What moves the schedule besides its own writes (§11.5 `Last-Modified`, §11.6 rules 4 and 17):
 * changes to events, playables and subsystems (targets, delivery), media content (`objectList`), and
 * the `timezone` setting.
 */
import type { Deps } from '../../../deps';
import type { BusEvent } from '../../../realtime/bus';
import { applyTargetChange, syncItemTargets } from '../items/targets';
import { dropZoneMember } from '../zones/service';
import { changeClock, markDependencyChanged, markMediaChanged } from './change-clock';

const TARGETS = new Set(['event', 'playable', 'subsystem', 'player']);
/** Content a read's `objectList` describes (size, digests, whether it can be fetched). */
const MEDIA_EVENTS = new Set(['object.uploaded', 'object.deleted', 'object.restored']);

const text = (value: unknown): string | null => (typeof value === 'string' ? value : null);

function onEvent(deps: Deps, event: BusEvent): void {
  const [noun, change] = event.type.split('.');
  if (
    noun === undefined ||
    !TARGETS.has(noun) ||
    (change !== 'created' && change !== 'updated' && change !== 'deleted')
  ) {
    // A timezone change is picked up (and announced) by the change clock itself.
    if (event.type === 'settings.changed') changeClock(deps);
    else if (MEDIA_EVENTS.has(event.type)) markMediaChanged(deps);
    return;
  }
  if (noun === 'subsystem' || noun === 'player') {
    // Only who a target belongs to matters; a subsystem's delete takes its events and playables along
    // silently. A player counts by its externalId and container (§11.6 rule 11); a deleted one leaves its zones.
    const changed = Array.isArray(event.data.changed) ? event.data.changed : [];
    if (change === 'updated' && !['externalId', 'type', 'container'].some((f) => changed.includes(f))) return;
    markDependencyChanged(deps);
    if (change !== 'created') syncItemTargets(deps);
    if (change === 'deleted' && typeof event.data._id === 'number') dropZoneMember(deps, event.data._id);
    return;
  }
  markDependencyChanged(deps);
  const id = event.data._id;
  if (typeof id !== 'number') return;
  applyTargetChange(deps, {
    itemType: noun === 'event' ? 'EVENT' : 'PLAYABLE',
    change,
    id,
    subsystemExternalId: text(event.data.subsystemExternalId),
    externalRef: text(event.data.externalRef),
  });
}

/** Installed once per daemon by boot's openDeps. */
export function installScheduleListeners(deps: Deps): void {
  changeClock(deps);
  deps.bus.subscribe((event) => onEvent(deps, event));
}
