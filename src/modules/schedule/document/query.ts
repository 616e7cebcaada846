/**
 * The query of the schedule reads (§11.5): `from`/`to` (span at most 366 days), `beforeCount`
 * (0–1000, default 0), `afterCount` (0–10000, default 100), `subsystemExternalId`, `subsystemId`,
 * `zoneId`, `itemType`, `objectList`, `limit`. Numbers and booleans arrive as strings and are
 * checked here so a bad one is a 400 `bad_request` naming its parameter.
 */
import { t } from 'elysia';
import { badRequest } from '../../../http/errors';
import { queryInstant } from '../../../http/instant';
import { MAX_LIMIT } from '../../../http/lists';
import { fromLocalNaive, parseNaive } from '../engine/tz';

const DAY = 86_400_000;

export const ScheduleReadQuery = t.Object({
  from: t.Optional(t.String({ maxLength: 64 })),
  to: t.Optional(t.String({ maxLength: 64 })),
  beforeCount: t.Optional(t.String({ maxLength: 16 })),
  afterCount: t.Optional(t.String({ maxLength: 16 })),
  subsystemExternalId: t.Optional(t.String({ maxLength: 128 })),
  subsystemId: t.Optional(t.String({ maxLength: 128 })),
  zoneId: t.Optional(t.String({ maxLength: 16 })),
  itemType: t.Optional(t.String({ maxLength: 16 })),
  objectList: t.Optional(t.String({ maxLength: 8 })),
  limit: t.Optional(t.String({ maxLength: 16 })),
});

export type ScheduleReadQueryIn = typeof ScheduleReadQuery.static;

export interface ReadQuery {
  /** Both set: the window read; both null: the read around now. */
  from: number | null;
  to: number | null;
  beforeCount: number;
  afterCount: number;
  subsystemExternalId: string | null;
  subsystemId: string | null;
  zoneId: number | null;
  itemType: 'EVENT' | 'PLAYABLE' | 'PLAYLIST' | 'BLOCK' | null;
  objectList: boolean;
  limit: number;
  /** Only the entries playing this playable (`GET /playables/{id}/instances`, §14); null: all. */
  playableId: number | null;
  /** The normalised query: equal keys give the same answer for the same schedule version. */
  key: string;
}

function bad(name: string, rule: string): never {
  throw badRequest(`${name} ${rule}`, [{ path: `/${name}`, message: rule }]);
}

function integer(raw: string | undefined, name: string, min: number, max: number, fallback: number): number {
  if (raw === undefined) return fallback;
  const rule = `must be an integer from ${min} to ${max}`;
  if (!/^[0-9]{1,9}$/.test(raw)) bad(name, rule);
  const n = Number(raw);
  if (n < min || n > max) bad(name, rule);
  return n;
}

/**
 * A date alone is the start of that day in the appliance time zone, as every other date of the
 * schedule (exclusions, closed dates, `until`): `from=2027-01-01&to=2027-01-02` is the venue's
 * 1 January, 23 or 25 hours long on a change day, its midnight inside a gap at the gap's end (rule 2).
 * It was UTC midnight, so a venue in New York asking for a day got 19:00 the evening before to 19:00.
 * Both forms strict (2026-02-30 was read as 2 March), but for an offset's `+` that the query string
 * decoded to a space (http/instant.ts).
 */
function instant(raw: string | undefined, name: string, timezone: string): number | null {
  if (raw === undefined) return null;
  const date = /^\d{4}-\d{2}-\d{2}$/.test(raw) ? parseNaive(raw) : null;
  const ms = date !== null ? fromLocalNaive(timezone, date) : queryInstant(raw);
  if (ms === null) bad(name, 'must be an ISO-8601 time with Z or an offset, or a local date YYYY-MM-DD');
  return ms;
}

const ITEM_TYPES = ['EVENT', 'PLAYABLE', 'PLAYLIST', 'BLOCK'] as const;

/**
 * Checks and normalises the query. Only `from`: a 24-hour window from it; only `to`: from now.
 */
export function readQuery(query: ScheduleReadQueryIn, now: number, timezone: string): ReadQuery {
  let from = instant(query.from, 'from', timezone);
  let to = instant(query.to, 'to', timezone);
  if (from !== null && to === null) to = from + DAY;
  if (from === null && to !== null) from = now;
  if (from !== null && to !== null) {
    if (from >= to) bad('to', 'must be after from');
    if (to - from > 366 * DAY) bad('to', 'must be at most 366 days after from');
  }
  const itemType = query.itemType === undefined ? null : (ITEM_TYPES.find((x) => x === query.itemType) ?? null);
  if (query.itemType !== undefined && itemType === null)
    bad('itemType', 'must be one of: EVENT, PLAYABLE, PLAYLIST, BLOCK');
  if (query.objectList !== undefined && query.objectList !== 'true' && query.objectList !== 'false')
    bad('objectList', 'must be true or false');
  const zoneId = query.zoneId === undefined ? null : integer(query.zoneId, 'zoneId', 1, 999_999_999, 1);
  const parsed = {
    from,
    to,
    beforeCount: integer(query.beforeCount, 'beforeCount', 0, 1000, 0),
    afterCount: integer(query.afterCount, 'afterCount', 0, 10000, 100),
    subsystemExternalId: query.subsystemExternalId ?? null,
    subsystemId: query.subsystemId ?? null,
    zoneId,
    itemType,
    objectList: query.objectList === 'true',
    limit: integer(query.limit, 'limit', 1, MAX_LIMIT, MAX_LIMIT),
    playableId: null,
  };
  return { ...parsed, key: JSON.stringify(parsed) };
}

/** The same read narrowed to the entries of one playable (its instances, §14), with its own cache key. */
export function playableReadQuery(q: ReadQuery, playableId: number): ReadQuery {
  const { key: _key, ...parsed } = q;
  const narrowed = { ...parsed, playableId };
  return { ...narrowed, key: JSON.stringify(narrowed) };
}
