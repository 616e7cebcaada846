/**
 * What moves the schedule besides its own writes (§11.5 `Last-Modified`, §11.6 rules 4 and 17):
 * changes to events, playables and subsystems (targets, delivery), and the `timezone` setting.
 */
import type { Deps } from '../../deps';
import type { BusEvent } from '../../realtime/bus';
import { syncItemTargets } from './items-targets';
import { markScheduleChanged, scheduleState } from './snapshot-state';

const TARGET_KINDS: Record<string, string> = { event: 'events', playable: 'playables', subsystem: 'subsystems' };

function onEvent(deps: Deps, event: BusEvent): void {
  const [noun, change] = event.type.split('.');
  const kind = noun === undefined ? undefined : TARGET_KINDS[noun];
  if (kind && (change === 'created' || change === 'updated' || change === 'deleted')) {
    markScheduleChanged(deps, [kind]);
    syncItemTargets(deps);
    return;
  }
  // A timezone change is picked up (and announced) by the change clock itself.
  if (event.type === 'settings.changed') scheduleState(deps);
}

/** Installed once per daemon by boot's openDeps. */
export function installScheduleListeners(deps: Deps): void {
  deps.bus.subscribe((event) => onEvent(deps, event));
}
