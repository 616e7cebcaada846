/** Calendars (§11.2): groups of scheduled items with a default priority and closed dates. */
import { and, asc, count, eq, ne } from 'drizzle-orm';
import { changedFields } from '../../../core/changes';
import type { Principal } from '../../../core/principal';
import { type ClosedDates, scheduleCalendars, scheduledItems } from '../../../db/schema';
import type { Deps } from '../../../deps';
import { conflict, invalid, notFound } from '../../../http/errors';
import { cleanName, numericId } from '../../../http/fields';
import { type ListResult, type Page, paginate, whereFields } from '../../../http/lists';
import { isLocalDate } from '../engine/tz';
import { releaseDetached } from '../items/orphans';
import { announceScheduleWrite, scheduleWrite } from '../snapshot/change-clock';
import { nextPaletteColor } from '../zones/palette';
import { type CalendarRow, toCalendarDto } from './mapper';
import { CALENDAR_FIELD_FILTERS, type CalendarCreate, type CalendarDto, type CalendarUpdate } from './model';

export function findCalendarRow(deps: Deps, id: string | number): CalendarRow | undefined {
  const n = typeof id === 'number' ? id : numericId(id);
  return n === null ? undefined : deps.db.select().from(scheduleCalendars).where(eq(scheduleCalendars.id, n)).get();
}

/** The calendar an `{id}` names, or 404. */
export function calendarRow(deps: Deps, id: string | number): CalendarRow {
  const row = findCalendarRow(deps, id);
  if (!row) throw notFound('calendar', id);
  return row;
}

function itemCounts(deps: Deps): Map<number, number> {
  const rows = deps.db
    .select({ calendarId: scheduledItems.calendarId, n: count() })
    .from(scheduledItems)
    .groupBy(scheduledItems.calendarId)
    .all();
  return new Map(rows.map((r) => [r.calendarId, r.n]));
}

function dto(deps: Deps, row: CalendarRow): CalendarDto {
  return toCalendarDto(row, itemCounts(deps).get(row.id) ?? 0);
}

export function listCalendars(deps: Deps, query: object, page: Page): ListResult<CalendarDto> {
  const counts = itemCounts(deps);
  const rows = deps.db.select().from(scheduleCalendars).orderBy(asc(scheduleCalendars.id)).all();
  return paginate(
    whereFields(
      rows.map((r) => toCalendarDto(r, counts.get(r.id) ?? 0)),
      query,
      CALENDAR_FIELD_FILTERS,
    ),
    page,
  );
}

export function getCalendar(deps: Deps, id: string): CalendarDto {
  return dto(deps, calendarRow(deps, id));
}

/** Real dates, `from` not after `to` (400 at `/closedDates/<n>/…`). */
function closedDatesOf(list: ReadonlyArray<{ from: string; to: string; label?: string }>): ClosedDates[] {
  return list.map((range, i) => {
    if (!isLocalDate(range.from)) throw invalid(`/closedDates/${i}/from`, 'must be a local date YYYY-MM-DD');
    if (!isLocalDate(range.to)) throw invalid(`/closedDates/${i}/to`, 'must be a local date YYYY-MM-DD');
    if (range.to < range.from) throw invalid(`/closedDates/${i}/to`, 'must not be before from');
    return { from: range.from, to: range.to, label: range.label ?? '' };
  });
}

function assertNameFree(deps: Deps, name: string, exceptId: number): void {
  const taken = deps.db
    .select({ id: scheduleCalendars.id })
    .from(scheduleCalendars)
    .where(and(eq(scheduleCalendars.displayName, name), ne(scheduleCalendars.id, exceptId)))
    .get();
  if (taken) throw conflict('a calendar with this displayName already exists');
}

export function createCalendar(deps: Deps, principal: Principal, body: CalendarCreate): CalendarDto {
  const displayName = cleanName(body.displayName);
  const closedDates = closedDatesOf(body.closedDates ?? []);
  assertNameFree(deps, displayName, 0);
  const colors = deps.db.select({ color: scheduleCalendars.color }).from(scheduleCalendars).all();
  const now = deps.clock.now();
  return scheduleWrite(deps, () => {
    const row = deps.db
      .insert(scheduleCalendars)
      .values({
        displayName,
        description: body.description ?? '',
        enabled: body.enabled ?? true,
        defaultPriority: body.defaultPriority ?? 50,
        color: body.color?.toUpperCase() ?? nextPaletteColor(colors.map((c) => c.color)),
        closedDates,
        createdAt: now,
        updatedAt: now,
      })
      .returning()
      .get();
    const out = toCalendarDto(row, 0);
    announceScheduleWrite(deps, principal, 'calendar', 'created', out, [
      'displayName',
      'description',
      'enabled',
      'defaultPriority',
      'color',
      'closedDates',
    ]);
    return out;
  });
}

/**
 * Updates the fields present. Only fields whose value differs count (core/changes.ts): an update
 * that changes none (`{}`, the entity sent back as read) answers it as it is: `_updatedAt` and
 * `Last-Modified` stay, no event, no `schedule.changed`, no audit entry, no re-plan.
 */
export function updateCalendar(deps: Deps, principal: Principal, id: string, body: CalendarUpdate): CalendarDto {
  const row = calendarRow(deps, id);
  const changes: Partial<CalendarRow> = {};
  if (body.displayName !== undefined) {
    changes.displayName = cleanName(body.displayName);
    assertNameFree(deps, changes.displayName, row.id);
  }
  if (body.description !== undefined) changes.description = body.description;
  if (body.enabled !== undefined) changes.enabled = body.enabled;
  if (body.defaultPriority !== undefined) changes.defaultPriority = body.defaultPriority;
  if (body.color !== undefined) changes.color = body.color.toUpperCase();
  if (body.closedDates !== undefined) changes.closedDates = closedDatesOf(body.closedDates);
  const changed = changedFields(row, changes);
  if (changed.length === 0) return dto(deps, row);
  return scheduleWrite(deps, () => {
    const updated =
      deps.db
        .update(scheduleCalendars)
        .set({ ...changes, updatedAt: deps.clock.now() })
        .where(eq(scheduleCalendars.id, row.id))
        .returning()
        .get() ?? row;
    const out = dto(deps, updated);
    announceScheduleWrite(deps, principal, 'calendar', 'updated', out, changed);
    return out;
  });
}

/** Deletes a calendar; one with items only with `force` (which deletes them). Calendar 1 is 409. */
export function deleteCalendar(deps: Deps, principal: Principal, id: string, force: boolean): void {
  const row = calendarRow(deps, id);
  if (row.id === 1) throw conflict('calendar 1 is built in and cannot be deleted');
  const items = itemCounts(deps).get(row.id) ?? 0;
  if (items > 0 && !force) throw conflict(`calendar ${row.id} still has ${items} scheduled item(s); use force=true`);
  scheduleWrite(deps, () => {
    deps.db.delete(scheduledItems).where(eq(scheduledItems.calendarId, row.id)).run();
    releaseDetached(deps);
    deps.db.delete(scheduleCalendars).where(eq(scheduleCalendars.id, row.id)).run();
    announceScheduleWrite(deps, principal, 'calendar', 'deleted', toCalendarDto(row, 0), [], { deletedItems: items });
  });
}
