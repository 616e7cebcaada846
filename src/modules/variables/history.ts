/** Variable history (§4.1 `GET /variables/{id}/history`, rule 6 retention). */
import { and, asc, between, desc, eq, sql } from 'drizzle-orm';
import { iso } from '../../clock';
import { getSettingGroup } from '../../core/settings';
import { variableHistory } from '../../db/schema';
import type { Deps } from '../../deps';
import { badRequest } from '../../http/errors';
import { numericId } from '../../http/fields';
import type { ListResult, Page } from '../../http/lists';
import { transact } from '../../realtime/emit';
import type { HistoryQuery } from './model';
import { requireVariable } from './repo';

const DAY_MS = 86_400_000;
const MAX_SPAN_MS = 31 * DAY_MS;

export interface HistoryPoint {
  at: string;
  value: string;
  source: string;
  by: string | null;
}

function timeOf(text: string, path: string): number {
  const ms = Date.parse(text);
  if (Number.isNaN(ms))
    throw badRequest(`${path.slice(1)} must be an ISO-8601 time`, [{ path, message: 'must be an ISO-8601 time' }]);
  return ms;
}

/** Points of one variable between `from` and `to` (default the last 24 h, at most 31 days), newest first by default. */
export function variableHistoryOf(deps: Deps, id: string, query: HistoryQuery, page: Page): ListResult<HistoryPoint> {
  const row = requireVariable(deps, numericId(id), id);
  const now = deps.clock.now();
  const to = query.to === undefined ? now : timeOf(query.to, '/to');
  const from = query.from === undefined ? to - DAY_MS : timeOf(query.from, '/from');
  if (from > to) throw badRequest('from must not be after to', [{ path: '/from', message: 'must not be after to' }]);
  if (to - from > MAX_SPAN_MS)
    throw badRequest('the span from from to to must be at most 31 days', [
      { path: '/from', message: 'must be at most 31 days before to' },
    ]);
  const where = and(eq(variableHistory.variableId, row.id), between(variableHistory.at, from, to));
  const order =
    query.order === 'asc'
      ? [asc(variableHistory.at), asc(variableHistory.id)]
      : [desc(variableHistory.at), desc(variableHistory.id)];
  const rows = deps.db
    .select()
    .from(variableHistory)
    .where(where)
    .orderBy(...order)
    .limit(page.limit)
    .offset(page.offset)
    .all();
  const total = deps.db.select({ n: sql<number>`count(*)` }).from(variableHistory).where(where).get()?.n ?? 0;
  return { items: rows.map((r) => ({ at: iso(r.at), value: r.value, source: r.source, by: r.by })), total };
}

/**
 * Retention (rule 6): drops points older than `variables.historyRetentionDays` and, per variable,
 * all but the newest `variables.maxHistoryPointsPerVariable`. Returns the number removed.
 */
export function purgeVariableHistory(deps: Deps): number {
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
