/** The only Entry → wire mapping of a §11.5 schedule entry. */
import { iso } from '../../../clock';
import { selfLink } from '../../../http/links';
import { entryTimes } from '../engine/format';
import type { Entry } from '../engine/types';

export interface DeliveredTo {
  subsystemId: number;
  subsystemExternalId: string;
}

/**
 * `delivered` replaces the owner when the read is filtered by a delivery target; `objects` (the
 * playable's media object ids; none for an event) is only present with `objectList`.
 */
export function toEntryDto(e: Entry, timezone: string, delivered: DeliveredTo | null, objects: number[] | null) {
  return {
    _id: e.id,
    itemType: e.itemType,
    itemId: e.itemId,
    scheduledItemId: e.scheduledItemId,
    calendarId: e.calendarId,
    playlistId: e.playlistId,
    blockId: e.blockId,
    displayName: e.displayName,
    description: e.description,
    duration: e.duration,
    command: e.command,
    externalRef: e.externalRef,
    subsystemId: delivered?.subsystemId ?? e.subsystemId,
    subsystemExternalId: delivered?.subsystemExternalId ?? e.subsystemExternalId,
    targets: e.targets,
    zone: e.zone,
    zoneId: e.zoneId,
    priority: e.priority,
    ...entryTimes(e, timezone),
    ...(objects === null ? {} : { objects }),
    createdAt: iso(e.createdAt),
    updatedAt: iso(e.updatedAt),
    _links: {
      self: selfLink('schedules', e.scheduledItemId),
      item: selfLink(e.itemType === 'EVENT' ? 'events' : 'playables', e.itemId),
    },
  };
}

export type EntryDto = ReturnType<typeof toEntryDto>;
