/**
 * Downloads attributed to a player (§12 rule 6, §14 rule 4): a download of an object's content with
 * `?player=<externalId>` (or the header `x-player-id`) counts toward that player's copies. The
 * objects module serves the bytes and reports, when the answer's body has finished or the client
 * left, which range went out (objects/download.ts); this records it and moves the player's copies.
 *
 * Decisions where §12 is silent:
 * - `player` in the query wins over the header; either names a player by externalId, or by `_id`
 *   when all digits (as a path segment does, C: Identity).
 * - A name that is no player (unknown, or a subsystem that is not a player) changes nothing about
 *   the download: it is served as usual and attributed to nobody, and nothing is logged (a player
 *   configured with a wrong name would otherwise fill the log at every fetch).
 * - Only bytes handed to the client count: a client that leaves midway records what it was sent; a
 *   304, an error or an empty range records nothing.
 * - One write per finished request, batched by the writer with other hot writes, never per chunk:
 *   the range is merged into what the player has of that content version. When the content was
 *   replaced (or the object purged) while the download ran, nothing is recorded: those bytes are of
 *   a version nobody copies any more.
 * - Each copy of a copyToPlayer playable naming the object that targets the player moves: `copying`
 *   with the bytes received so far, `complete` once every object is received in full. A copy already
 *   complete (received, or reported by the player) stays so. A download that brings nothing new
 *   (the player fetched the same version again) still moves them: a copy its player reported
 *   `pending` or `failed` completes when it fetches what it had already received.
 */
import type { SubsystemRow } from '../../core/subsystems';
import { findSubsystem } from '../../core/subsystems';
import { prepared } from '../../db/prepared';
import type { Deps } from '../../deps';
import type { CopyState } from './copy-model';
import { addRange, coveredBytes, progressOf, type Ranges } from './copy-progress';
import { announceCopy, type CopyValues, writeCopy } from './copy-store';
import type { CopyStatusRow } from './copy-summary';
import { playableRowById } from './lookup';

/** The player a download names (`?player=` or `x-player-id`), or null: unattributed. */
export function attributedPlayer(deps: Deps, request: Request, queryPlayer: string | undefined): SubsystemRow | null {
  const key = queryPlayer ?? request.headers.get('x-player-id');
  if (key === null || key === '' || key.length > 128) return null;
  const row = findSubsystem(deps, key);
  return row?.kind === 'player' ? row : null;
}

interface Target {
  playableId: number;
  state: CopyState;
  bytesDone: number;
  bytesTotal: number;
  error: string | null;
  stale: number;
  updatedAt: number;
  objects: string;
}

function statements(deps: Deps) {
  return prepared(deps, 'playables.copy-downloads', () => ({
    version: deps.sqlite.prepare<{ sha256: string | null }, [number]>('SELECT sha256 FROM objects WHERE id = ?1'),
    received: deps.sqlite.prepare<{ sha256: string; ranges: string; bytes: number }, [number, number]>(
      'SELECT sha256, ranges, bytes FROM copy_received WHERE player_id = ?1 AND object_id = ?2',
    ),
    // Guarded: a player deleted while the bytes went out leaves nothing to record.
    store: deps.sqlite.prepare<unknown, [number, number, string, string, number, number]>(
      `INSERT INTO copy_received (player_id, object_id, sha256, ranges, bytes, updated_at)
       SELECT ?1, ?2, ?3, ?4, ?5, ?6
       WHERE EXISTS (SELECT 1 FROM subsystems WHERE id = ?1) AND EXISTS (SELECT 1 FROM objects WHERE id = ?2)
       ON CONFLICT (player_id, object_id) DO UPDATE SET sha256 = excluded.sha256, ranges = excluded.ranges,
         bytes = excluded.bytes, updated_at = excluded.updated_at`,
    ),
    targets: deps.sqlite.prepare<Target, [number, number]>(
      `SELECT s.playable_id AS playableId, s.state AS state, s.bytes_done AS bytesDone,
              s.bytes_total AS bytesTotal, s.error AS error, s.stale AS stale, s.updated_at AS updatedAt,
              p.objects AS objects
       FROM copy_statuses s JOIN playables p ON p.id = s.playable_id
       WHERE s.player_id = ?1 AND p.copy_to_player = 1
         AND EXISTS (SELECT 1 FROM json_each(p.objects) j WHERE j.value = ?2)`,
    ),
  }));
}

/** Moves one copy of the player after it received more (decisions above). */
function advance(deps: Deps, playerId: number, target: Target): void {
  if (target.state === 'complete') return;
  const p = progressOf(deps, playerId, JSON.parse(target.objects) as number[]);
  const next: CopyValues = p.complete
    ? { state: 'complete', bytesDone: p.bytesTotal, bytesTotal: p.bytesTotal, error: null, stale: false }
    : { state: 'copying', bytesDone: p.bytesDone, bytesTotal: p.bytesTotal, error: null, stale: false };
  const current: CopyStatusRow = { ...target, playerId, stale: target.stale === 1 };
  if (!writeCopy(deps, target.playableId, playerId, next, current)) return;
  const playable = playableRowById(deps, target.playableId);
  if (playable) announceCopy(deps, playable);
}

/** The writer job of one finished download: `[start, end)` of the `sha256` version of the object reached the player. */
function receive(deps: Deps, playerId: number, objectId: number, sha256: string, start: number, end: number): void {
  const s = statements(deps);
  // Replaced (or purged) while the bytes went out: they are of a version nobody copies any more.
  if (s.version.get(objectId)?.sha256 !== sha256) return;
  const row = s.received.get(playerId, objectId);
  const before: Ranges = row && row.sha256 === sha256 ? (JSON.parse(row.ranges) as Ranges) : [];
  const ranges = addRange(before, start, end);
  const bytes = coveredBytes(ranges);
  if (!row || row.sha256 !== sha256 || row.bytes !== bytes) {
    s.store.run(playerId, objectId, sha256, JSON.stringify(ranges), bytes, deps.clock.now());
  }
  for (const target of s.targets.all(playerId, objectId)) advance(deps, playerId, target);
}

/**
 * Records that `sent` bytes of the object's content from `start` reached the player, in the writer's
 * next batch. A failure is logged: the download itself has already been answered.
 */
export function recordReceived(
  deps: Deps,
  player: SubsystemRow,
  object: { id: number; sha256: string },
  start: number,
  sent: number,
): Promise<void> {
  if (sent <= 0) return Promise.resolve();
  return deps.work
    .submit(() => receive(deps, player.id, object.id, object.sha256, start, start + sent))
    .catch((err: unknown) => {
      deps.log.warn({ err, player: player.externalId, object: object.id }, 'recording an attributed download failed');
    });
}
