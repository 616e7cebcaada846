/**
 * The targets the schedule plays: a few columns of every event, playable and subsystem. Events and
 * playables come from those modules' read.ts, below their services (which show schedule usage and so
 * import the schedule); subsystems from core/subsystems.ts.
 */
import { allSubsystemKeys } from '../../../core/subsystems';
import type { Deps } from '../../../deps';
import { allEventsWithOwner } from '../../events/read';
import { allPlayablesWithOwner } from '../../playables/read';
import type { EngineSubsystem, EngineTarget } from '../engine/types';
import type { PlayableTarget } from './loaded';

export interface Targets {
  events: EngineTarget[];
  playables: PlayableTarget[];
  subsystems: EngineSubsystem[];
  /** The newest `updatedAt` of an event or playable, to the millisecond `_updatedAt` shows. */
  newestChange: number;
}

/** Every event and playable of an existing subsystem, and every subsystem, in `_id` order. */
export function readTargets(deps: Deps): Targets {
  let newestChange = 0;
  const seen = (updatedAt: number) => {
    newestChange = Math.max(newestChange, Math.trunc(updatedAt));
  };
  const eventRows = allEventsWithOwner(deps);
  const playableRows = allPlayablesWithOwner(deps);
  const subsystemRows = allSubsystemKeys(deps);
  const eventTargets = eventRows.map(({ event: e, subsystemExternalId }): EngineTarget => {
    seen(e.updatedAt);
    return {
      id: e.id,
      subsystemId: e.subsystemId,
      subsystemExternalId,
      externalRef: e.externalRef,
      command: e.command,
      durationMs: null,
      displayName: e.displayName,
      description: e.description,
      active: e.active,
      eventPlayer: e.eventPlayer,
    };
  });
  const playableTargets = playableRows.map(({ playable: p, subsystemExternalId }): PlayableTarget => {
    seen(p.updatedAt);
    return {
      id: p.id,
      subsystemId: p.subsystemId,
      subsystemExternalId,
      externalRef: p.externalRef ?? '',
      command: p.command,
      durationMs: p.durationType === 'infinite' ? null : p.duration,
      displayName: p.displayName,
      description: p.description,
      active: p.active && p.availableInSubsystem,
      type: p.type,
      durationType: p.durationType,
    };
  });
  return {
    events: eventTargets,
    playables: playableTargets,
    subsystems: subsystemRows.map((s) => ({
      id: s.id,
      externalId: s.externalId,
      isContainer: s.containerId === null && s.type.endsWith('Container'),
      containerId: s.containerId,
    })),
    newestChange,
  };
}
