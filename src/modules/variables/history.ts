/**
 * Variable history (§4.1 `GET /variables/{id}/history`, rule 6 retention), stored in two steps.
 *
 * The value path appends each point to `variable_history_recent`, a table without an index: an
 * append dirties the one page at the table's end. `settleVariableHistory` (the job
 * `variables.history-settle`, every second) moves the points into `variable_history` in chunks,
 * sorted the way its index is (variable, time), so a chunk dirties each index page it reaches once.
 * Written straight into the indexed table, each point of a writer batch landed on an index page of
 * its own, and every such page went to the WAL at the batch's commit: at full ingest that was about
 * half of SQLite's time per value write (bench/RESULTS.md, "Hot paths, session 4": value writes with
 * a token 36.4 → 28.4 µs of CPU each).
 *
 * Nothing sees the two steps:
 * - A read covers both tables, so a point is readable as soon as its write is answered.
 * - Points keep their arrival order. A chunk is moved sorted by (variable, time, arrival), and moved
 *   points take ids after every settled one; a read orders equal times settled first, then recent
 *   ones by arrival. That is the order the points have once all are settled.
 * - Retention settles everything first, through the writer like the job; on a full disk it deletes
 *   without the move (the deletes make the room).
 * - A deleted variable's recent points are dropped when their chunk is moved (variable ids are never
 *   reused): the table has no foreign key, so a value write pays no parent lookup for it.
 * - A recent point is committed with its value: it survives a power cut as the value does.
 * - A read and its count scan the whole recent table (no index): about a second of points normally;
 *   on a full disk, where the move waits, it grows until there is room again.
 */
import { iso } from '../../clock';
import { getSettingGroup } from '../../core/settings';
import { prepared } from '../../db/prepared';
import type { Deps } from '../../deps';
import { badRequest, settledUnlessDiskFull } from '../../http/errors';
import { numericId } from '../../http/fields';
import { instantOfQuery } from '../../http/instant';
import type { ListResult, Page } from '../../http/lists';
import { transact } from '../../realtime/emit';
import type { HistoryQuery } from './model';
import { requireVariable } from './repo';

const DAY_MS = 86_400_000;
const MAX_SPAN_MS = 31 * DAY_MS;
/**
 * Most points one move takes: enough that a moved point shares its index page with others, few
 * enough that the writer batch it rides in stays short.
 */
export const SETTLE_CHUNK = 4096;

export interface HistoryPoint {
  at: string;
  value: string;
  source: string;
  by: string | null;
}

interface PointRow {
  at: number;
  value: string;
  source: string;
  by: string | null;
}

/** Recent points order after every settled one at the same time: their `seq` starts here (2^52; ids stay below). */
const RECENT_SEQ = 2 ** 52;

/**
 * Both tables' points of one variable in [from, to], `seq` ordering points of the same time in
 * arrival order (settled ids first, then recent rowids past `RECENT_SEQ`). Ordered on the compound
 * itself, by (at, seq), which is the settled points' index order (the index ends with the id): SQLite
 * merges them as read with the few recent ones and stops at the page's end. Ordered in an enclosing
 * SELECT it sorted every point of the range first (58 ms instead of 0.1 ms for the first 100 of
 * 200 000); a page 150 000 deep takes 22–29 ms, against 4 ms from the one table.
 */
const POINTS = `
  SELECT at, id AS seq, value, source, by FROM variable_history
    WHERE variable_id = ?1 AND at BETWEEN ?2 AND ?3
  UNION ALL
  SELECT at, rowid + ${RECENT_SEQ} AS seq, value, source, by FROM variable_history_recent
    WHERE variable_id = ?1 AND at BETWEEN ?2 AND ?3`;

function statements(deps: Deps) {
  return prepared(deps, 'variables.history', () => ({
    asc: deps.sqlite.prepare<PointRow, [number, number, number, number, number]>(
      `${POINTS} ORDER BY 1, 2 LIMIT ?4 OFFSET ?5`,
    ),
    desc: deps.sqlite.prepare<PointRow, [number, number, number, number, number]>(
      `${POINTS} ORDER BY 1 DESC, 2 DESC LIMIT ?4 OFFSET ?5`,
    ),
    count: deps.sqlite.prepare<{ n: number }, [number, number, number]>(
      `SELECT (SELECT count(*) FROM variable_history WHERE variable_id = ?1 AND at BETWEEN ?2 AND ?3)
            + (SELECT count(*) FROM variable_history_recent WHERE variable_id = ?1 AND at BETWEEN ?2 AND ?3) AS n`,
    ),
    /** The last rowid of the next chunk (null when nothing waits). */
    chunkEnd: deps.sqlite.prepare<{ last: number | null }, [number]>(
      'SELECT max(rowid) AS last FROM (SELECT rowid FROM variable_history_recent ORDER BY rowid LIMIT ?1)',
    ),
    move: deps.sqlite.prepare<unknown, [number]>(
      `INSERT INTO variable_history (variable_id, at, value, source, by)
         SELECT r.variable_id, r.at, r.value, r.source, r.by FROM variable_history_recent r
         WHERE r.rowid <= ?1 AND EXISTS (SELECT 1 FROM variables v WHERE v.id = r.variable_id)
         ORDER BY r.variable_id, r.at, r.rowid`,
    ),
    drop: deps.sqlite.prepare<unknown, [number]>('DELETE FROM variable_history_recent WHERE rowid <= ?1'),
  }));
}

/** Points of one variable between `from` and `to` (default the last 24 h, at most 31 days), newest first by default. */
export function variableHistoryOf(deps: Deps, id: string, query: HistoryQuery, page: Page): ListResult<HistoryPoint> {
  const row = requireVariable(deps, numericId(id), id);
  const now = deps.clock.now();
  const to = query.to === undefined ? now : instantOfQuery(query.to, '/to');
  const from = query.from === undefined ? to - DAY_MS : instantOfQuery(query.from, '/from');
  if (from > to) throw badRequest('from must not be after to', [{ path: '/from', message: 'must not be after to' }]);
  if (to - from > MAX_SPAN_MS)
    throw badRequest('the span from from to to must be at most 31 days', [
      { path: '/from', message: 'must be at most 31 days before to' },
    ]);
  const s = statements(deps);
  const rows = (query.order === 'asc' ? s.asc : s.desc).all(row.id, from, to, page.limit, page.offset);
  const total = s.count.get(row.id, from, to)?.n ?? 0;
  return { items: rows.map((r) => ({ at: iso(r.at), value: r.value, source: r.source, by: r.by })), total };
}

/** Moves the oldest `SETTLE_CHUNK` recent points (inside the caller's transaction); returns how many it took. */
function moveChunk(deps: Deps): number {
  const s = statements(deps);
  const last = s.chunkEnd.get(SETTLE_CHUNK)?.last ?? null;
  if (last === null) return 0;
  s.move.run(last);
  return s.drop.run(last).changes;
}

/**
 * Moves every recent point into `variable_history`, a chunk per writer batch (each rides with the
 * value writes queued beside it, so requests wait for no more than one chunk). Returns the points taken.
 */
export async function settleVariableHistory(deps: Deps): Promise<number> {
  // Read outside the writer: an idle daemon runs no empty write transaction every second.
  if ((statements(deps).chunkEnd.get(1)?.last ?? null) === null) return 0;
  let taken = 0;
  for (;;) {
    const moved = await deps.work.submit(() => moveChunk(deps));
    taken += moved;
    if (moved < SETTLE_CHUNK) return taken;
  }
}

/**
 * Retention (rule 6): drops points older than `variables.historyRetentionDays` and, per variable,
 * all but the newest `variables.maxHistoryPointsPerVariable`. The recent points are settled first
 * (through the writer, a chunk per batch), so the cap counts them; points arriving meanwhile are the
 * newest and count at the next run. On a full disk the move waits and the deletes still run: they are
 * what makes room. Returns the number removed.
 */
export async function purgeVariableHistory(deps: Deps): Promise<number> {
  await settledUnlessDiskFull(settleVariableHistory(deps));
  const { historyRetentionDays, maxHistoryPointsPerVariable } = getSettingGroup(deps, 'variables');
  const cutoff = deps.clock.now() - historyRetentionDays * DAY_MS;
  return transact(deps, () => {
    let removed = deps.sqlite.query('DELETE FROM variable_history WHERE at < ?1').run(cutoff).changes;
    const over = deps.sqlite
      .query('SELECT variable_id AS id FROM variable_history GROUP BY variable_id HAVING count(*) > ?1')
      .all(maxHistoryPointsPerVariable) as Array<{ id: number }>;
    const trim = deps.sqlite.query(
      'DELETE FROM variable_history WHERE id IN (SELECT id FROM variable_history WHERE variable_id = ?1 ORDER BY at DESC, id DESC LIMIT -1 OFFSET ?2)',
    );
    for (const { id } of over) removed += trim.run(id, maxHistoryPointsPerVariable).changes;
    return removed;
  });
}
