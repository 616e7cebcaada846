/** The time fields of a §11.5 entry, written as the wire wants them (UTC, `*Local` with the offset, Unix s). */
import type { Entry } from './types';
import { formatLocal } from './tz';

export interface EntryTimes {
  startTime: string;
  endTime: string;
  startTimeLocal: string;
  endTimeLocal: string;
  startTimeUnix: number;
  endTimeUnix: number;
  occurrenceStartTime: string;
  occurrenceEndTime: string;
}

export function entryTimes(e: Entry, tz: string): EntryTimes {
  return {
    startTime: new Date(e.start).toISOString(),
    endTime: new Date(e.end).toISOString(),
    startTimeLocal: formatLocal(tz, e.start),
    endTimeLocal: formatLocal(tz, e.end),
    startTimeUnix: Math.floor(e.start / 1000),
    endTimeUnix: Math.floor(e.end / 1000),
    occurrenceStartTime: new Date(e.occurrenceStart).toISOString(),
    occurrenceEndTime: new Date(e.occurrenceEnd).toISOString(),
  };
}
