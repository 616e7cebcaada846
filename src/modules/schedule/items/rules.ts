/**
 * The field rules of a scheduled item (§11.2, "Bad input" of §11.6): times given in UTC or local
 * form, ends, duration, recurrence, exclusions, target, zone and calendar. A write is checked as the
 * whole item it would leave behind, so PUT, PATCH and create share one path.
 */
import { changedFields, sameValue } from '../../../core/changes';
import type { StoredRecurrence } from '../../../db/schema';
import { invalid } from '../../../http/errors';
import { cleanName, unique } from '../../../http/fields';
import { parseInstant } from '../../../instant';
import { occurrencesOverlap, pruneExclusions, validateRecurrence } from '../engine/recurrence';
import {
  formatNaive,
  fromLocalNaive,
  isLocalDate,
  LocalTimeError,
  localString,
  parseLocalInput,
  parseNaive,
  toLocalNaive,
} from '../engine/tz';
import { engineItem } from '../snapshot/load';
import type { LoadedSchedule } from '../snapshot/loaded';
import { type ItemRow, itemInstants, wireName } from './mapper';
import type { ItemWrite } from './model';
import { requireTarget } from './targets';

const MAX_DURATION_MS = 31 * 86_400_000;

/** The stored fields of an item, as a write would leave them. */
export type ItemValues = Omit<ItemRow, 'id' | 'createdAt' | 'updatedAt'>;

function instantOf(text: string, path: string): number {
  const ms = parseInstant(text);
  if (ms === null) throw invalid(path, 'must be an ISO-8601 time with Z or an offset');
  return Math.floor(ms / 1000) * 1000;
}

function localOf(tz: string, text: string, path: string): { local: string; instant: number } {
  try {
    return parseLocalInput(tz, text);
  } catch (err) {
    if (err instanceof LocalTimeError) throw invalid(path, err.message);
    throw err;
  }
}

/**
 * Whether `instant` is the second instance of a wall time repeated at fall-back, which the wall time
 * alone would not name (rule 2 reads it as the first): kept beside it as the item's `…Fold`.
 */
function isFold(tz: string, instant: number): boolean {
  return fromLocalNaive(tz, toLocalNaive(tz, instant)) !== instant;
}

/**
 * One end of the item from `<name>Time` and `<name>TimeLocal`: the wall-clock text, whether the
 * instant given is the later of a repeated wall time, and the instant; null when the body clears it,
 * undefined when the body gives neither. Both given must name the same second.
 */
function timeFrom(tz: string, utc: string | null | undefined, local: string | null | undefined, name: string) {
  if (utc === undefined && local === undefined) return undefined;
  if ((utc ?? null) === null && (local ?? null) === null) return null;
  const fromLocal = typeof local === 'string' ? localOf(tz, local, `/${name}TimeLocal`) : null;
  const fromUtc = typeof utc === 'string' ? instantOf(utc, `/${name}Time`) : null;
  if (fromLocal && fromUtc !== null && Math.floor(fromLocal.instant / 1000) !== fromUtc / 1000)
    throw invalid(`/${name}TimeLocal`, `does not name the same moment as ${name}Time`);
  const instant = fromLocal?.instant ?? fromUtc ?? 0;
  return {
    local: fromLocal?.local ?? localString(tz, instant),
    fold: isFold(tz, instant),
    instant,
    path: fromLocal ? `/${name}TimeLocal` : `/${name}Time`,
  };
}

const FREQS: ReadonlyArray<StoredRecurrence['freq']> = ['daily', 'weekly', 'monthly', 'yearly'];

/** A list without duplicates, or null when empty or absent. */
function listOrNull<T>(list: readonly T[] | null | undefined, each: (x: T) => T): T[] | null {
  const kept = (list ?? []).filter((x) => x !== '').map(each);
  return kept.length > 0 ? unique(kept) : null;
}

function recurrenceOf(body: NonNullable<ItemWrite['recurrence']>): StoredRecurrence {
  const freq = FREQS.find((f) => f === body.freq);
  if (!freq) throw invalid('/recurrence/freq', 'must be daily, weekly, monthly or yearly');
  return {
    freq,
    interval: body.interval ?? 1,
    byDay: listOrNull(typeof body.byDay === 'string' ? body.byDay.split(',').map((d) => d.trim()) : body.byDay, (d) =>
      d.toUpperCase(),
    ),
    byMonthDay: listOrNull(typeof body.byMonthDay === 'number' ? [body.byMonthDay] : body.byMonthDay, (d) => d),
    until: body.until ?? null,
    count: body.count ?? null,
  };
}

function exclusionsOf(list: readonly string[]): string[] {
  list.forEach((d, i) => {
    if (!isLocalDate(d)) throw invalid(`/exclusions/${i}`, 'must be a local date YYYY-MM-DD');
  });
  return unique(list).sort();
}

/**
 * The item a write leaves: `current` (null on create) with the body's writable fields applied, every
 * rule checked. `calendarId` is the default calendar of a create. Returns the values and the names
 * of the fields that changed.
 */
export function draftItem(
  loaded: LoadedSchedule,
  current: ItemRow | null,
  body: ItemWrite,
  calendarId: number,
): { values: ItemValues; changed: string[] } {
  const tz = loaded.snapshot.timezone;
  const itemType = body.itemType ?? current?.itemType;
  const itemId = body.itemId ?? current?.itemId;
  if (itemType === undefined) throw invalid('/itemType', 'is required');
  if (itemId === undefined) throw invalid('/itemId', 'is required');
  const calendar = loaded.calendars.get(body.calendarId ?? current?.calendarId ?? calendarId);
  if (!calendar) throw invalid('/calendarId', 'names no calendar');
  const zoneId = body.zoneId ?? current?.zoneId ?? 1;
  if (!loaded.zones.has(zoneId)) throw invalid('/zoneId', 'names no zone');

  const retarget = !current || itemType !== current.itemType || itemId !== current.itemId;
  const target = retarget
    ? requireTarget(loaded, itemType, itemId)
    : { subsystemExternalId: current.targetSubsystemExternalId, externalRef: current.targetExternalRef };

  const start = timeFrom(tz, body.startTime, body.startTimeLocal, 'start');
  if (start === null || (start === undefined && !current))
    throw invalid('/startTime', 'is required (or startTimeLocal)');
  const startLocal = start?.local ?? current?.startLocal ?? '';
  const startFold = start ? start.fold : (current?.startFold ?? false);
  const end = timeFrom(tz, body.endTime, body.endTimeLocal, 'end');
  let endLocal = end === undefined ? (current?.endLocal ?? null) : (end?.local ?? null);
  let endFold = end === undefined ? (current?.endFold ?? false) : (end?.fold ?? false);
  if (start && end === undefined && current && current.endLocal !== null) {
    // A moved start keeps the item's wall-clock length (rule 1): moved onto a change day, an
    // occurrence across it is an hour longer or shorter there, not every day after.
    const span = (parseNaive(current.endLocal) ?? 0) - (parseNaive(current.startLocal) ?? 0);
    if (span >= 0) {
      const endNaive = (parseNaive(startLocal) ?? 0) + span;
      endLocal = formatNaive(endNaive);
      // After a start given as the second instance of a repeated time, the end is in that instance too.
      endFold = fromLocalNaive(tz, endNaive) < start.instant;
    } else {
      // Negative only with folds (01:30 to the second 01:15): the length as elapsed.
      const [was, wasEnd] = itemInstants(current, tz, 0);
      const moved = start.instant + (wasEnd - was);
      endLocal = localString(tz, moved);
      endFold = isFold(tz, moved);
    }
  }
  const endPath = end?.path ?? '/endTime';
  if (endLocal === null && (itemType === 'PLAYABLE' || itemType === 'PLAYLIST'))
    throw invalid('/endTime', 'is required (or endTimeLocal)');

  let recurrence = current?.recurrence ?? null;
  if (body.recurrence !== undefined) recurrence = body.recurrence === null ? null : recurrenceOf(body.recurrence);
  let exclusions = body.exclusions !== undefined ? exclusionsOf(body.exclusions) : (current?.exclusions ?? []);
  if (recurrence) {
    const problem = validateRecurrence(recurrence, startLocal)[0];
    if (problem) throw invalid(problem.path, problem.message);
  }

  const values: ItemValues = {
    calendarId: calendar.id,
    itemType,
    itemId,
    zoneId,
    displayName:
      body.displayName === undefined ? (current?.displayName ?? null) : body.displayName && cleanName(body.displayName),
    description: body.description === undefined ? (current?.description ?? null) : body.description,
    startLocal,
    endLocal,
    startFold,
    endFold: endLocal === null ? false : endFold,
    recurrence,
    exclusions,
    priority: body.priority ?? current?.priority ?? calendar.defaultPriority,
    enabled: body.enabled ?? current?.enabled ?? true,
    catchUp: body.catchUp ?? current?.catchUp ?? true,
    targetSubsystemExternalId: target.subsystemExternalId,
    targetExternalRef: target.externalRef,
    targetMissing: retarget ? false : (current?.targetMissing ?? false),
    parentId: current?.parentId ?? null,
  };
  const probe = { ...values, id: current?.id ?? 0, createdAt: 0, updatedAt: 0 };
  const blockDuration = itemType === 'BLOCK' ? (loaded.blocks.get(itemId)?.duration ?? 0) : 0;
  const [s, e] = itemInstants(probe, tz, blockDuration);
  if (itemType === 'EVENT' ? e < s : e <= s)
    throw invalid(endPath, itemType === 'EVENT' ? 'must not be before the start' : 'must be after the start');
  if (e - s > MAX_DURATION_MS) throw invalid(endPath, 'must be at most 31 days after the start');
  const asEngine = engineItem(probe, loaded.blocks);
  if (occurrencesOverlap(asEngine, tz))
    throw invalid('/recurrence', 'makes occurrences of this item overlap each other');
  const patternChanged =
    current !== null &&
    (!sameValue(recurrence, current.recurrence) || startLocal.slice(0, 10) !== current.startLocal.slice(0, 10));
  if (patternChanged) {
    exclusions = pruneExclusions(asEngine, tz);
    values.exclusions = exclusions;
  }
  const changed = changedFields(current ?? undefined, values);
  return { values, changed: changed.map(wireName).filter((n, i, all) => all.indexOf(n) === i) };
}
