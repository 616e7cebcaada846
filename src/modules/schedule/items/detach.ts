/**
 * Detach (§11.2): one occurrence of a series becomes its own one-off item with `parentId`; its date
 * joins the series' `exclusions`. The body is `{date, …changed fields}` applied to the one-off.
 */
import { eq } from 'drizzle-orm';
import type { Principal } from '../../../core/principal';
import { scheduledItems } from '../../../db/schema';
import type { Deps } from '../../../deps';
import { invalid } from '../../../http/errors';
import { calendarRow } from '../calendars/service';
import { isOccurrenceDate } from '../engine/recurrence';
import { formatNaive, parseNaive } from '../engine/tz';
import { announceScheduleWrite, scheduleWrite } from '../snapshot/change-clock';
import { engineItem, loadSchedule } from '../snapshot/load';
import { type ItemRow, itemInstants } from './mapper';
import type { ItemDetach, ItemDto } from './model';
import { draftItem } from './rules';
import { itemDto, itemRow } from './service';

/**
 * The occurrence on `date` as a one-off copy of the series (same wall-clock time and length); the
 * instants given with an offset (`startFold`, `endFold`) belong to the series' first date only.
 */
function oneOff(series: ItemRow, date: string, tz: string): ItemRow {
  const first = date === series.startLocal.slice(0, 10);
  const startLocal = `${date}${series.startLocal.slice(10)}`;
  let endLocal: string | null = null;
  if (series.endLocal !== null) {
    let length = (parseNaive(series.endLocal) ?? 0) - (parseNaive(series.startLocal) ?? 0);
    // Negative only for a first occurrence ending in the second instance of a repeated hour: the
    // later occurrences last as long as it did (engine/recurrence.ts).
    if (length < 0 && !first) {
      const [start, end] = itemInstants(series, tz, 0);
      length = end - start;
    }
    endLocal = formatNaive((parseNaive(startLocal) ?? 0) + length);
  }
  return {
    ...series,
    startLocal,
    endLocal,
    startFold: first && series.startFold,
    endFold: first && series.endFold,
    recurrence: null,
    exclusions: [],
    parentId: series.id,
  };
}

export function detachOccurrence(
  deps: Deps,
  principal: Principal,
  calendarId: string,
  id: string,
  body: ItemDetach,
): ItemDto {
  const series = itemRow(deps, id, calendarRow(deps, calendarId).id);
  const loaded = loadSchedule(deps);
  const tz = loaded.snapshot.timezone;
  if (!isOccurrenceDate(engineItem(series, loaded.blocks), tz, body.date))
    throw invalid('/date', 'is not an occurrence of this item');
  const { date, ...changes } = body;
  const { values } = draftItem(loaded, oneOff(series, date, tz), changes, series.calendarId);
  const exclusions = [...series.exclusions, date].sort();
  const now = deps.clock.now();
  return scheduleWrite(deps, () => {
    deps.db.update(scheduledItems).set({ exclusions, updatedAt: now }).where(eq(scheduledItems.id, series.id)).run();
    const row = deps.db
      .insert(scheduledItems)
      .values({ ...values, parentId: series.id, createdAt: now, updatedAt: now })
      .returning()
      .get();
    announceScheduleWrite(
      deps,
      principal,
      'scheduleditem',
      'updated',
      { _id: series.id, displayName: series.displayName },
      ['exclusions'],
      {
        calendarId: series.calendarId,
      },
    );
    const dto = itemDto(deps, loaded, row);
    announceScheduleWrite(deps, principal, 'scheduleditem', 'created', dto, ['parentId'], {
      calendarId: row.calendarId,
      parentId: series.id,
    });
    return dto;
  });
}
