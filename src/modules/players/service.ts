/**
 * Players (§13): screens and media devices inside a container subsystem, stored as rows of the
 * subsystems table with `kind` player. They share the subsystems' `externalId` space, health state
 * machine, heartbeat route and action queue (modules/subsystems); the row writes are the
 * subsystems' own (`createSubsystemRow`, `updateSubsystemRow`, `deleteSubsystemRow`), which name
 * events and audit entries after the kind (`player.created`, …).
 *
 * Decisions where §13 is silent:
 * - `container` names a subsystem (not a player) whose `type` ends in `Container`, by `_id` or
 *   externalId; an unknown one is 400 at `/container` like one that is not a container.
 * - A player's own `type` may not end in `Container` (400): a player contains nothing.
 * - An upsert whose `_id` names no player is 404; one whose `externalId` belongs to a subsystem is
 *   409 (the namespace is shared, and a subsystem never turns into a player).
 * - Reads add `containerExternalId` beside `container`, and `_links.self` is `/api/v1/players/<_id>`.
 * - `defaultState` in a player body (POST, PUT, PATCH) sets it as the `defaultState` route does.
 *   Sending back the stored state unchanged is accepted even when its object or playlist has gone
 *   since (a read sent back whole, C: Requests). `mediaId` is required for `single` and `playlist`.
 * - `mediaDetails` is built at read time: `single` → the instant playable of the object while the
 *   object exists (trashed included), null once it is purged; `playlist` → `{_id, displayName,
 *   loop, entries}` with the instant playable of each PLAYABLE entry that still exists, in order
 *   (event entries play nothing on a screen and are left out); null once the playlist is gone.
 * - A default state change emits `player.updated` (changed `defaultState`) and
 *   `player.default_state_changed` `{_id, externalId, container, subsystemExternalId,
 *   defaultState: {mediaType, mediaId}}`, with one audit entry.
 * - Permissions (§0.3): `players:read` reads. Create and update need `players:write` or the
 *   integration role, and a credential limited to some subsystems must act for the container (or,
 *   for an existing player, the player itself); moving a player needs the new container too.
 *   Delete needs `players:write` (the integration role may not delete players).
 * - Creating a player is refused (409) when the installed licence allows no more (§19 rule 2,
 *   modules/license/limits.ts); with no licence installed there is no limit (rule 3).
 * - Changing `container` keeps zone membership (§13 rule 3) and resets copy statuses: the player
 *   leaves its old container's copies and joins its new one's (playables/copy-listeners.ts, in the
 *   same unit as the `player.updated` it reacts to); deleting it removes them (ON DELETE CASCADE).
 */
import { and, asc, eq } from 'drizzle-orm';
import { type Principal, requireOwnWrite } from '../../core/principal';
import { findSubsystem, type SubsystemRow } from '../../core/subsystems';
import { schedulePlaylists, scheduleZones, subsystems } from '../../db/schema';
import type { Deps } from '../../deps';
import { conflict, invalid, notFound } from '../../http/errors';
import {
  fieldFilterValues,
  fieldsMatch,
  fuzzyMatch,
  type ListResult,
  metadataMatches,
  type Page,
} from '../../http/lists';
import { upsertTarget } from '../../http/upsert';
import { emit, transact } from '../../realtime/emit';
import { requireLicenseRoom } from '../license/limits';
import { instantPlayableOfObject, mediaObject } from '../objects/media-playable';
import { findInstantPlayable } from '../playables/lookup';
import type { InstantPlayable } from '../playables/model';
import { liveHealth } from '../subsystems/health';
import { SUBSYSTEM_FIELD_FILTERS } from '../subsystems/model';
import { valuesOf } from '../subsystems/rules';
import {
  byExternalId,
  createSubsystemRow,
  deleteSubsystemRow,
  isContainer,
  isContainerType,
  subsystemDto,
  updateSubsystemRow,
} from '../subsystems/service';
import { type PlayerRow, toPlayerDto } from './mapper';
import type {
  DefaultStateDto,
  DefaultStateWriteBody,
  MediaType,
  PlayerDto,
  PlayerListQuery,
  PlayerWrite,
} from './model';

type ZoneMembers = Array<{ id: number; members: number[] }>;

function zoneMembers(deps: Deps): ZoneMembers {
  return deps.db
    .select({ id: scheduleZones.id, members: scheduleZones.members })
    .from(scheduleZones)
    .orderBy(asc(scheduleZones.id))
    .all();
}

/** The player an `_id` or externalId names; 404 also for a subsystem that is no player. */
export function requirePlayer(deps: Deps, id: string | number): PlayerRow {
  const row = findSubsystem(deps, id);
  if (row?.kind !== 'player') throw notFound('player', id);
  return row;
}

/** The container a body names (400 at `/container` when it names none). */
function containerOf(deps: Deps, key: string | number): SubsystemRow {
  const row = findSubsystem(deps, key);
  if (!row || !isContainer(row)) {
    throw invalid('/container', 'must name a subsystem whose type ends in Container');
  }
  return row;
}

/** Writing a player: `players:write` or the integration role, acting for the player or its container. */
function requirePlayerWrite(principal: Principal, row: PlayerRow): void {
  // A container's credential acts for its players through `actsFor` itself.
  requireOwnWrite(principal, 'players:write', row.id);
}

interface PlaylistDetails {
  _id: number;
  displayName: string;
  loop: boolean;
  entries: InstantPlayable[];
}

/** `defaultState.mediaDetails`, computed for this read (decisions above). */
function mediaDetailsOf(
  deps: Deps,
  type: MediaType,
  id: number | null,
  origin: string,
): InstantPlayable | PlaylistDetails | null {
  if (type === 'none' || id === null) return null;
  if (type === 'single') {
    const object = mediaObject(deps, id);
    return object ? instantPlayableOfObject(deps, object, origin) : null;
  }
  const playlist = deps.db.select().from(schedulePlaylists).where(eq(schedulePlaylists.id, id)).get();
  if (!playlist) return null;
  const entries: InstantPlayable[] = [];
  for (const entry of playlist.entries) {
    if (entry.itemType !== 'PLAYABLE') continue;
    const playable = findInstantPlayable(deps, entry.itemId, origin);
    if (playable) entries.push(playable);
  }
  return { _id: playlist.id, displayName: playlist.displayName, loop: playlist.loop, entries };
}

function defaultStateDto(deps: Deps, row: PlayerRow, origin: string): DefaultStateDto {
  const mediaType = row.defaultMediaType;
  const mediaId = mediaType === 'none' ? null : row.defaultMediaId;
  return { mediaType, mediaId, mediaDetails: mediaDetailsOf(deps, mediaType, mediaId, origin) };
}

function playerDto(deps: Deps, row: PlayerRow, origin: string, zones: ZoneMembers = zoneMembers(deps)): PlayerDto {
  const container = row.containerId === null ? undefined : findSubsystem(deps, row.containerId);
  return toPlayerDto(
    subsystemDto(deps, row),
    row,
    container?.externalId ?? '',
    zones.filter((z) => z.members.includes(row.id)).map((z) => z.id),
    defaultStateDto(deps, row, origin),
  );
}

type StateColumns = Pick<SubsystemRow, 'defaultMediaType' | 'defaultMediaId'>;

const NO_STATE: StateColumns = { defaultMediaType: 'none', defaultMediaId: null };

/**
 * The stored columns of a default state body, checked (§13 "Bad input"): `single` names an uploaded
 * cms-media object, `playlist` an existing playlist; `mediaId` is dropped for `none`. `at` is the
 * body path of the state (`` for the route's own body, `/defaultState` inside a player).
 */
function stateColumns(
  deps: Deps,
  body: DefaultStateWriteBody,
  stored: PlayerRow | undefined,
  at: string,
): StateColumns {
  if (body.mediaType === 'none') return NO_STATE;
  const id = body.mediaId ?? null;
  if (id === null) throw invalid(`${at}/mediaId`, `is required when mediaType is ${body.mediaType}`);
  const columns = { defaultMediaType: body.mediaType, defaultMediaId: id };
  if (stored && stored.defaultMediaType === body.mediaType && stored.defaultMediaId === id) return columns;
  if (body.mediaType === 'single') {
    if (mediaObject(deps, id)?.status !== 'uploaded') {
      throw invalid(`${at}/mediaId`, 'must name an uploaded cms-media object');
    }
  } else if (
    !deps.db.select({ id: schedulePlaylists.id }).from(schedulePlaylists).where(eq(schedulePlaylists.id, id)).get()
  ) {
    throw invalid(`${at}/mediaId`, 'names no playlist');
  }
  return columns;
}

/** The subsystem fields of a player body, checked; a player's type never makes it a container. */
function playerValues(body: PlayerWrite, row: PlayerRow | undefined): Partial<SubsystemRow> {
  const values = valuesOf(body, row);
  if (values.type !== undefined && isContainerType(values.type)) {
    throw invalid('/type', 'must not end in Container: a player contains no players');
  }
  return values;
}

function stateChanged(before: StateColumns, after: StateColumns): boolean {
  return before.defaultMediaType !== after.defaultMediaType || before.defaultMediaId !== after.defaultMediaId;
}

function emitStateChanged(deps: Deps, row: PlayerRow): void {
  const container = row.containerId === null ? undefined : findSubsystem(deps, row.containerId);
  const live = liveHealth(deps, row);
  emit(deps, 'player.default_state_changed', {
    _id: row.id,
    externalId: row.externalId,
    container: row.containerId,
    subsystemExternalId: container?.externalId ?? null,
    status: live.status,
    defaultState: { mediaType: row.defaultMediaType, mediaId: row.defaultMediaId },
  });
}

function createPlayer(deps: Deps, principal: Principal, body: PlayerWrite): PlayerRow {
  const { externalId } = body;
  if (externalId === undefined) throw invalid('/externalId', 'is required');
  if (body.container === undefined) throw invalid('/container', 'is required');
  const container = containerOf(deps, body.container);
  requireOwnWrite(principal, 'players:write', container.id);
  const values = playerValues(body, undefined);
  const state = body.defaultState ? stateColumns(deps, body.defaultState, undefined, '/defaultState') : NO_STATE;
  return transact(deps, () => {
    requireLicenseRoom(deps, 'players');
    const row = createSubsystemRow(deps, principal, externalId, values, {
      kind: 'player',
      containerId: container.id,
      ...state,
    });
    if (stateChanged(NO_STATE, row)) emitStateChanged(deps, row);
    return row;
  });
}

function updatePlayer(deps: Deps, principal: Principal, row: PlayerRow, body: PlayerWrite): PlayerRow {
  requirePlayerWrite(principal, row);
  const extra: Partial<SubsystemRow> = {};
  if (body.container !== undefined) {
    const container = containerOf(deps, body.container);
    if (container.id !== row.containerId) requireOwnWrite(principal, 'players:write', container.id);
    extra.containerId = container.id;
  }
  if (body.defaultState !== undefined)
    Object.assign(extra, stateColumns(deps, body.defaultState, row, '/defaultState'));
  const values = playerValues(body, row);
  return transact(deps, () => {
    const updated = updateSubsystemRow(deps, principal, row, values, extra);
    if (stateChanged(row, updated)) emitStateChanged(deps, updated);
    return updated;
  });
}

/**
 * POST/PUT `/players` (C: Requests): updates the player the body names by `_id` (when it exists: an
 * unknown `_id` is ignored; a subsystem's is 404) or by `externalId` (a subsystem's is 409), else
 * creates one.
 */
export function upsertPlayer(
  deps: Deps,
  principal: Principal,
  body: PlayerWrite,
  origin: string,
): { entity: PlayerDto; created: boolean } {
  const externalId = body.externalId;
  const existing = upsertTarget(
    body._id,
    (id) => (findSubsystem(deps, id) === undefined ? undefined : requirePlayer(deps, id)),
    () => {
      const row = externalId === undefined ? undefined : byExternalId(deps, externalId);
      if (row && row.kind !== 'player')
        throw conflict(`${externalId} is the externalId of a subsystem, not of a player`);
      return row;
    },
  );
  if (existing)
    return { entity: playerDto(deps, updatePlayer(deps, principal, existing, body), origin), created: false };
  return { entity: playerDto(deps, createPlayer(deps, principal, body), origin), created: true };
}

/** PUT/PATCH `/players/{id}`: the writable fields present change; `_id` in the body is ignored. */
export function updatePlayerById(
  deps: Deps,
  principal: Principal,
  id: string,
  body: PlayerWrite,
  origin: string,
): PlayerDto {
  const row = requirePlayer(deps, id);
  const { _id: _ignored, ...fields } = body;
  return playerDto(deps, updatePlayer(deps, principal, row, fields), origin);
}

export function getPlayer(deps: Deps, id: string, origin: string): PlayerDto {
  return playerDto(deps, requirePlayer(deps, id), origin);
}

/**
 * Players in `_id` order, filtered by `container` (`_id` or externalId; an unknown one matches
 * nothing), exact `type` and `externalId`, live `status`, `zoneId` (members of that zone),
 * `metadata[key]`, the subsystem's scalar fields (`SUBSYSTEM_FIELD_FILTERS`, on the subsystem wire
 * form) and `fuzzy` (displayName, externalId, description). Only the page is built into player form.
 */
export function listPlayers(
  deps: Deps,
  query: PlayerListQuery,
  metadataFilter: Record<string, string>,
  page: Page,
  origin: string,
): ListResult<PlayerDto> {
  const where = [eq(subsystems.kind, 'player')];
  if (query.container !== undefined) {
    const container = findSubsystem(deps, query.container);
    if (!container) return { items: [], total: 0 };
    where.push(eq(subsystems.containerId, container.id));
  }
  const zones = zoneMembers(deps);
  const inZone =
    query.zoneId === undefined ? null : new Set(zones.find((z) => z.id === Number(query.zoneId))?.members ?? []);
  const fields = fieldFilterValues(query, SUBSYSTEM_FIELD_FILTERS);
  const rows = deps.db
    .select()
    .from(subsystems)
    .where(and(...where))
    .orderBy(asc(subsystems.id))
    .all()
    .filter(
      (r) =>
        (query.type === undefined || r.type === query.type) &&
        (query.externalId === undefined || r.externalId === query.externalId) &&
        (query.status === undefined || liveHealth(deps, r).status === query.status) &&
        (inZone === null || inZone.has(r.id)) &&
        metadataMatches(r.metadata, metadataFilter) &&
        fuzzyMatch(query.fuzzy, r.displayName, r.externalId, r.description),
    )
    // The wire form only when a field filter needs it.
    .filter((r) => fields.length === 0 || fieldsMatch(subsystemDto(deps, r), fields));
  return {
    items: rows.slice(page.offset, page.offset + page.limit).map((r) => playerDto(deps, r, origin, zones)),
    total: rows.length,
  };
}

/** DELETE `/players/{id}`: it leaves its zones (schedule listeners) and its queued messages go with it. */
export function deletePlayer(deps: Deps, principal: Principal, id: string): void {
  const row = requirePlayer(deps, id);
  requirePlayerWrite(principal, row);
  deleteSubsystemRow(deps, principal, row);
}

export function getDefaultState(deps: Deps, id: string, origin: string): DefaultStateDto {
  return defaultStateDto(deps, requirePlayer(deps, id), origin);
}

/** PUT/POST `/players/{id}/defaultState` `{mediaType, mediaId}`; answers the state as read back. */
export function setDefaultState(
  deps: Deps,
  principal: Principal,
  id: string,
  body: DefaultStateWriteBody,
  origin: string,
): DefaultStateDto {
  const row = requirePlayer(deps, id);
  requirePlayerWrite(principal, row);
  const state = stateColumns(deps, body, row, '');
  const updated = transact(deps, () => {
    const next = updateSubsystemRow(deps, principal, row, {}, state);
    if (stateChanged(row, next)) emitStateChanged(deps, next);
    return next;
  });
  return defaultStateDto(deps, updated, origin);
}
