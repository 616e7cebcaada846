import type { playables } from '../../db/schema';
import type { Deps } from '../../deps';
import { entityMeta } from '../../http/entity';
import { selfLink } from '../../http/links';
import { mediaReadyOf, type NamedObjects, objectsDetailsOf } from '../objects/media-playable';
import { type CopyStatuses, toCopyStatusDto } from './copy-summary';
import type { InstantPlayable, PlayableDto } from './model';

export type PlayableRow = typeof playables.$inferSelect;

/**
 * The only row → wire mapping of a playable. `objectsDetails` and `mediaReady` come from the objects
 * its page names, read once by the caller (`named`, objects/media-playable.ts: the objects that still
 * exist, in order, with `_links.get` signed for the reading request's origin; ready when every one is
 * uploaded). `copyToPlayerStatus` is built from the copy status rows of the page's playables, read
 * once by the caller too (`copies`, copy-summary.ts); `isUpcomingSchedule` comes from the schedule.
 */
export function toPlayableDto(
  deps: Deps,
  row: PlayableRow,
  subsystemExternalId: string,
  isUpcomingSchedule: boolean,
  named: NamedObjects,
  copies: CopyStatuses,
): PlayableDto {
  return {
    ...entityMeta(row, 'playables', { subsystem: selfLink('subsystems', row.subsystemId) }),
    subsystemId: row.subsystemId,
    subsystemExternalId,
    externalRef: row.externalRef,
    displayName: row.displayName,
    description: row.description,
    command: row.command,
    group: row.groupName,
    duration: row.duration,
    durationType: row.durationType,
    type: row.type,
    objects: row.objects,
    objectsDetails: objectsDetailsOf(deps, named, row.objects),
    mediaReady: mediaReadyOf(named, row.objects),
    thumbId: row.thumbId,
    templatePath: row.templatePath,
    compositionId: row.compositionId,
    active: row.active,
    availableInSubsystem: row.availableInSubsystem,
    forceCached: row.forceCached,
    isCached: row.isCached,
    copyToPlayer: row.copyToPlayer,
    autoSync: row.autoSync,
    copyToPlayerStatus: toCopyStatusDto(deps, row.id, copies.get(row.id) ?? []),
    isUpcomingSchedule,
    metadata: row.metadata,
  };
}

/** The instant-playable form of a stored playable (§14), as `forcePlay` payloads carry it. */
export function toInstantPlayable(dto: PlayableDto): InstantPlayable {
  return {
    _id: dto._id,
    type: dto.type,
    displayName: dto.displayName,
    externalRef: dto.externalRef,
    command: dto.command,
    duration: dto.duration,
    durationType: dto.durationType,
    objects: dto.objects,
    objectsDetails: dto.objectsDetails,
    thumbId: dto.thumbId,
    active: dto.active,
    autoSync: dto.autoSync,
    isCached: dto.isCached,
    metadata: dto.metadata,
    group_name: dto.group,
  };
}
