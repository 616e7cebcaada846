import type { scheduleCalendars } from '../../../db/schema';
import { entityMeta } from '../../../http/entity';
import type { CalendarDto } from './model';

export type CalendarRow = typeof scheduleCalendars.$inferSelect;

/** The only row → wire mapping of a calendar; calendar 1 is built in. */
export function toCalendarDto(row: CalendarRow, itemCount: number): CalendarDto {
  return {
    ...entityMeta(row, 'schedule/calendars'),
    displayName: row.displayName,
    description: row.description,
    enabled: row.enabled,
    defaultPriority: row.defaultPriority,
    color: row.color,
    closedDates: row.closedDates,
    itemCount,
    builtIn: row.id === 1,
  };
}
