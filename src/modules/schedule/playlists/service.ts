/** Playlists (§11.3): entries played in order, looping until the occurrence ends by default. */
import { and, asc, eq, ne } from 'drizzle-orm';
import { changedFields } from '../../../core/changes';
import type { Principal } from '../../../core/principal';
import { type StoredPlaylistEntry, scheduleBlocks, scheduledItems, schedulePlaylists } from '../../../db/schema';
import type { Deps } from '../../../deps';
import { conflict, invalid, notFound } from '../../../http/errors';
import { cleanName, numericId } from '../../../http/fields';
import { type ListResult, type Page, paginate, whereFields } from '../../../http/lists';
import { clearDefaultStates, playersShowing } from '../../players/default-states';
import { releaseDetached } from '../items/orphans';
import { keptPair } from '../items/targets';
import { announceScheduleWrite, scheduleWrite } from '../snapshot/change-clock';
import { loadSchedule } from '../snapshot/load';
import type { LoadedSchedule, PlaylistRow } from '../snapshot/loaded';
import { type EntryTarget, toPlaylistDto } from './mapper';
import { PLAYLIST_FIELD_FILTERS, type PlaylistCreate, type PlaylistDto, type PlaylistUpdate } from './model';

const PLAYLIST_BLOCK_TYPES = new Set(['PLAYLIST', 'START_PLAYLIST', 'STOP_PLAYLIST']);

function targetOf(loaded: LoadedSchedule) {
  return (entry: StoredPlaylistEntry): EntryTarget | null => {
    const target = entry.itemType === 'EVENT' ? loaded.events.get(entry.itemId) : loaded.playables.get(entry.itemId);
    return target ? { displayName: target.displayName, durationMs: target.durationMs ?? 0 } : null;
  };
}

function dto(deps: Deps, row: PlaylistRow): PlaylistDto {
  return toPlaylistDto(row, targetOf(loadSchedule(deps)));
}

function playlistRow(deps: Deps, id: string): PlaylistRow {
  const n = numericId(id);
  const row =
    n === null ? undefined : deps.db.select().from(schedulePlaylists).where(eq(schedulePlaylists.id, n)).get();
  if (!row) throw notFound('playlist', id);
  return row;
}

export function listPlaylists(deps: Deps, query: object, page: Page): ListResult<PlaylistDto> {
  const rows = deps.db.select().from(schedulePlaylists).orderBy(asc(schedulePlaylists.id)).all();
  const target = targetOf(loadSchedule(deps));
  return paginate(
    whereFields(
      rows.map((r) => toPlaylistDto(r, target)),
      query,
      PLAYLIST_FIELD_FILTERS,
    ),
    page,
  );
}

export function getPlaylist(deps: Deps, id: string): PlaylistDto {
  return dto(deps, playlistRow(deps, id));
}

const heldKey = (entry: { itemType: string; itemId: number }) => `${entry.itemType}:${entry.itemId}`;

/**
 * Each entry names an existing event or non-template playable (400 at `/entries/<n>/itemId`); a
 * playable without a fixed duration needs `durationMs`. An entry the stored playlist already holds
 * may name a target deleted since (it reads back `missing`): keeping it is no new reference, so a
 * playlist read and PUT back is accepted (C: Requests). Each entry keeps its target's pair, by which
 * it re-links when the target is registered again (items/targets.ts, rule 17).
 */
function entriesOf(
  deps: Deps,
  list: PlaylistCreate['entries'],
  stored: readonly StoredPlaylistEntry[] = [],
): StoredPlaylistEntry[] {
  const loaded = loadSchedule(deps);
  const held = new Map(stored.map((entry) => [heldKey(entry), entry]));
  return list.map((entry, i) => {
    const target = entry.itemType === 'EVENT' ? loaded.events : loaded.playables;
    const kept = held.get(heldKey(entry));
    const pair = keptPair(loaded, entry.itemType, entry.itemId, kept);
    if (!target.has(entry.itemId) && kept) {
      return { itemType: entry.itemType, itemId: entry.itemId, durationMs: entry.durationMs ?? null, ...pair };
    }
    if (entry.itemType === 'EVENT') {
      if (!loaded.events.has(entry.itemId)) throw invalid(`/entries/${i}/itemId`, 'names no event');
    } else {
      const playable = loaded.playables.get(entry.itemId);
      if (!playable) throw invalid(`/entries/${i}/itemId`, 'names no playable');
      if (playable.type === 'template')
        throw invalid(`/entries/${i}/itemId`, 'names a template playable, which cannot be scheduled');
      if ((entry.durationMs ?? null) === null && (playable.durationType === 'infinite' || !playable.durationMs))
        throw invalid(`/entries/${i}/durationMs`, 'is required for a playable without a fixed duration');
    }
    return { itemType: entry.itemType, itemId: entry.itemId, durationMs: entry.durationMs ?? null, ...pair };
  });
}

function assertNameFree(deps: Deps, name: string, exceptId: number): void {
  const taken = deps.db
    .select({ id: schedulePlaylists.id })
    .from(schedulePlaylists)
    .where(and(eq(schedulePlaylists.displayName, name), ne(schedulePlaylists.id, exceptId)))
    .get();
  if (taken) throw conflict('a playlist with this displayName already exists');
}

export function createPlaylist(deps: Deps, principal: Principal, body: PlaylistCreate): PlaylistDto {
  const displayName = cleanName(body.displayName);
  const entries = entriesOf(deps, body.entries);
  assertNameFree(deps, displayName, 0);
  const now = deps.clock.now();
  return scheduleWrite(deps, () => {
    const row = deps.db
      .insert(schedulePlaylists)
      .values({
        displayName,
        description: body.description ?? '',
        entries,
        loop: body.loop ?? true,
        shuffle: body.shuffle ?? false,
        createdAt: now,
        updatedAt: now,
      })
      .returning()
      .get();
    const out = dto(deps, row);
    announceScheduleWrite(deps, principal, 'playlist', 'created', out, [
      'displayName',
      'description',
      'entries',
      'loop',
      'shuffle',
    ]);
    return out;
  });
}

/**
 * Updates the fields present. Only fields whose value differs count (core/changes.ts): an update
 * that changes none (`{}`, the entity sent back as read) answers it as it is: `_updatedAt` and
 * `Last-Modified` stay, no event, no `schedule.changed`, no audit entry, no re-plan.
 */
export function updatePlaylist(deps: Deps, principal: Principal, id: string, body: PlaylistUpdate): PlaylistDto {
  const row = playlistRow(deps, id);
  const changes: Partial<PlaylistRow> = {};
  if (body.displayName !== undefined) {
    changes.displayName = cleanName(body.displayName);
    assertNameFree(deps, changes.displayName, row.id);
  }
  if (body.description !== undefined) changes.description = body.description;
  if (body.entries !== undefined) changes.entries = entriesOf(deps, body.entries, row.entries);
  if (body.loop !== undefined) changes.loop = body.loop;
  if (body.shuffle !== undefined) changes.shuffle = body.shuffle;
  const changed = changedFields(row, changes);
  if (changed.length === 0) return dto(deps, row);
  return scheduleWrite(deps, () => {
    const updated =
      deps.db
        .update(schedulePlaylists)
        .set({ ...changes, updatedAt: deps.clock.now() })
        .where(eq(schedulePlaylists.id, row.id))
        .returning()
        .get() ?? row;
    const out = dto(deps, updated);
    announceScheduleWrite(deps, principal, 'playlist', 'updated', out, changed);
    return out;
  });
}

/**
 * Deletes a playlist. One used by scheduled items, block entries or player default states (§13) is
 * 409 unless `force`, which removes those items and entries and turns those default states to `none`
 * (each player emits `player.updated` with changed `defaultState` and `player.default_state_changed`).
 */
export function deletePlaylist(deps: Deps, principal: Principal, id: string, force: boolean): void {
  const row = playlistRow(deps, id);
  const items = deps.db
    .select({ id: scheduledItems.id })
    .from(scheduledItems)
    .where(and(eq(scheduledItems.itemType, 'PLAYLIST'), eq(scheduledItems.itemId, row.id)))
    .all();
  const uses = (b: typeof scheduleBlocks.$inferSelect) =>
    b.items.some((x) => PLAYLIST_BLOCK_TYPES.has(x.type) && x.typeId === row.id);
  const blocks = deps.db.select().from(scheduleBlocks).all().filter(uses);
  const players = playersShowing(deps, 'playlist', row.id);
  if ((items.length > 0 || blocks.length > 0 || players.length > 0) && !force) {
    const states = players.length > 0 ? ` and ${players.length} player default state(s)` : '';
    throw conflict(
      `playlist ${row.id} is used by ${items.length} scheduled item(s) and ${blocks.length} block(s)${states}; use force=true`,
    );
  }
  const now = deps.clock.now();
  scheduleWrite(deps, () => {
    deps.db
      .delete(scheduledItems)
      .where(and(eq(scheduledItems.itemType, 'PLAYLIST'), eq(scheduledItems.itemId, row.id)))
      .run();
    releaseDetached(deps);
    for (const block of blocks) {
      const kept = block.items.filter((x) => !(PLAYLIST_BLOCK_TYPES.has(x.type) && x.typeId === row.id));
      deps.db.update(scheduleBlocks).set({ items: kept, updatedAt: now }).where(eq(scheduleBlocks.id, block.id)).run();
    }
    clearDefaultStates(deps, 'playlist', row.id);
    deps.db.delete(schedulePlaylists).where(eq(schedulePlaylists.id, row.id)).run();
    announceScheduleWrite(deps, principal, 'playlist', 'deleted', { _id: row.id, displayName: row.displayName }, [], {
      deletedItems: items.length,
      changedBlocks: blocks.length,
      ...(players.length > 0 ? { clearedDefaultStates: players.length } : {}),
    });
  });
}
