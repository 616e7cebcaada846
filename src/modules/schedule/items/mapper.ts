import { iso } from '../../../clock';
import type { scheduledItems } from '../../../db/schema';
import { entityMeta } from '../../../http/entity';
import { selfLink } from '../../../http/links';
import { type Occurrence, spanInstants } from '../engine/recurrence';
import { formatLocal, parseNaive } from '../engine/tz';
import type { ItemDto } from './model';

export type ItemRow = typeof scheduledItems.$inferSelect;

/** What an item shows of its target (an event or playable; playlists and blocks give names only). */
export interface TargetView {
  displayName: string;
  description: string;
  subsystemId: number | null;
  command: string | null;
}

export interface ItemView {
  timezone: string;
  /** The target as it is now; null when it is missing. */
  target: TargetView | null;
  /** Length of an item stored without an end (BLOCK: the block's duration; EVENT: 0). */
  defaultDurationMs: number;
  next: Occurrence | null;
}

const WIRE: Partial<Record<string, string>> = {
  startLocal: 'startTime',
  startFold: 'startTime',
  endLocal: 'endTime',
  endFold: 'endTime',
  targetSubsystemExternalId: 'subsystemExternalId',
  targetExternalRef: 'externalRef',
};

/** A stored column's name on the wire, as `changed` lists carry it. */
export function wireName(column: string): string {
  return WIRE[column] ?? column;
}

/** A stored item's first-occurrence instants (start, end) in the time zone (recurrence.ts rules). */
export function itemInstants(
  row: Pick<ItemRow, 'startLocal' | 'startFold' | 'endLocal' | 'endFold'>,
  timezone: string,
  defaultDurationMs: number,
): [number, number] {
  const startNaive = parseNaive(row.startLocal) ?? 0;
  const endNaive = row.endLocal === null ? null : (parseNaive(row.endLocal) ?? startNaive);
  return spanInstants(timezone, startNaive, endNaive, defaultDurationMs, row.startFold, row.endFold);
}

/** The only row → wire mapping of a scheduled item (§11.2). */
export function toItemDto(row: ItemRow, view: ItemView): ItemDto {
  const [start, end] = itemInstants(row, view.timezone, view.defaultDurationMs);
  const target = view.target;
  const owned = row.itemType === 'EVENT' || row.itemType === 'PLAYABLE';
  return {
    ...entityMeta(row, 'schedules', {
      calendar: selfLink('schedule/calendars', row.calendarId),
      item: `${selfLink('schedule/calendars', row.calendarId)}/scheduledItems/${row.id}`,
    }),
    calendarId: row.calendarId,
    itemType: row.itemType,
    itemId: row.itemId,
    zoneId: row.zoneId,
    displayName: row.displayName ?? target?.displayName ?? `${row.itemType} ${row.itemId}`,
    description: row.description ?? target?.description ?? '',
    startTime: iso(start),
    endTime: iso(end),
    startTimeLocal: formatLocal(view.timezone, start),
    endTimeLocal: formatLocal(view.timezone, end),
    startTimeUnix: Math.floor(start / 1000),
    endTimeUnix: Math.floor(end / 1000),
    duration: end - start,
    recurrence: row.recurrence
      ? {
          freq: row.recurrence.freq,
          interval: row.recurrence.interval,
          byDay: row.recurrence.byDay,
          byMonthDay: row.recurrence.byMonthDay,
          until: row.recurrence.until,
          count: row.recurrence.count,
        }
      : null,
    exclusions: row.exclusions,
    priority: row.priority,
    enabled: row.enabled,
    catchUp: row.catchUp,
    subsystemId: owned ? (target?.subsystemId ?? null) : null,
    subsystemExternalId: owned ? row.targetSubsystemExternalId : null,
    externalRef: owned ? row.targetExternalRef : null,
    command: owned ? (target?.command ?? null) : null,
    targetMissing: row.targetMissing,
    parentId: row.parentId,
    nextOccurrence: view.next
      ? {
          startTime: iso(view.next.start),
          endTime: iso(view.next.end),
          startTimeLocal: formatLocal(view.timezone, view.next.start),
          endTimeLocal: formatLocal(view.timezone, view.next.end),
        }
      : null,
  };
}
