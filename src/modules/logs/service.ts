/**
 * The activity log (§9): listing in the page wrapper with every filter in SQL, posting entries,
 * reading one, and removing `activity` entries (one, or all older than a time).
 */
import { and, count, desc, eq, gte, inArray, lt, lte, or, type SQL, sql } from 'drizzle-orm';
import { type LogDto, type LogRow, toLogDto } from '../../core/log-entry';
import { writeAuditLog } from '../../core/platform-log';
import type { Principal } from '../../core/principal';
import { insertRow } from '../../db/prepared';
import { logs } from '../../db/schema';
import type { Deps } from '../../deps';
import { longerThan } from '../../http/characters';
import { AppError, badRequest, conflict, invalid, notFound } from '../../http/errors';
import { jsonText, numericId, tagsOf } from '../../http/fields';
import { instantOfQuery } from '../../http/instant';
import { emit, transact } from '../../realtime/emit';
import { creatorOf } from './creator';
import { type LogCreate, type LogListQuery, type LogPage, MAX_VALUE, SEVERITIES } from './model';
import { likePattern, logPageOf, pageTotals } from './paging';

type Severity = (typeof SEVERITIES)[number];
const SEVERITY_RULE = `must be one of: ${SEVERITIES.join(', ')}`;

/** A severity as posted or filtered: case-insensitive, `warn` meaning `warning`; null when unknown. */
function severityOf(raw: string): Severity | null {
  const s = raw.trim().toLowerCase();
  const name = s === 'warn' ? 'warning' : s;
  return (SEVERITIES as readonly string[]).includes(name) ? (name as Severity) : null;
}

function valueText(raw: unknown): string {
  const text = raw === undefined || raw === null ? '' : typeof raw === 'string' ? raw : jsonText(raw, '/value');
  if (longerThan(text, MAX_VALUE)) throw invalid('/value', `must be at most ${MAX_VALUE} characters`);
  return text;
}

function conditionsOf(query: LogListQuery): SQL[] {
  const where: SQL[] = [];
  if (query.severity !== undefined) {
    const wanted = query.severity.split(',').filter((s) => s.trim() !== '');
    const severities = wanted.map((s) => {
      const severity = severityOf(s);
      if (!severity) throw badRequest(`severity ${SEVERITY_RULE}`, [{ path: '/severity', message: SEVERITY_RULE }]);
      return severity;
    });
    if (severities.length > 0) where.push(inArray(logs.severity, severities));
  }
  if (query.key !== undefined) where.push(eq(logs.key, query.key));
  if (query.category !== undefined) where.push(eq(logs.category, query.category));
  if (query.createdBy !== undefined) where.push(eq(logs.createdBy, query.createdBy));
  if (query.createdByType !== undefined) where.push(eq(logs.createdByType, query.createdByType));
  if (query.subsystemExternalId !== undefined) where.push(eq(logs.subsystemExternalId, query.subsystemExternalId));
  for (const tag of query.tags === undefined ? [] : tagsOf(query.tags, '/tags')) {
    where.push(sql`exists (select 1 from json_each(${logs.tags}) where json_each.value = ${tag})`);
  }
  if (query.from !== undefined) where.push(gte(logs.time, instantOfQuery(query.from, '/from')));
  if (query.to !== undefined) where.push(lte(logs.time, instantOfQuery(query.to, '/to')));
  if (query.fuzzy) {
    const pattern = likePattern(query.fuzzy);
    const fuzzy = or(sql`${logs.key} like ${pattern} escape '\\'`, sql`${logs.value} like ${pattern} escape '\\'`);
    if (fuzzy) where.push(fuzzy);
  }
  return where;
}

/** `GET /logs`: newest first in the page wrapper; a page past the last is empty with the totals. */
export function listLogs(deps: Deps, query: LogListQuery): LogPage {
  const paging = logPageOf(query);
  const where = and(...conditionsOf(query));
  const total = deps.db.select({ n: count() }).from(logs).where(where).get()?.n ?? 0;
  const rows = deps.db
    .select()
    .from(logs)
    .where(where)
    .orderBy(desc(logs.time), desc(logs.id))
    .limit(paging.perPage)
    .offset((paging.page - 1) * paging.perPage)
    .all();
  return { ...pageTotals(paging, total), logs: rows.map(toLogDto) };
}

function logRow(deps: Deps, id: string): LogRow {
  const n = numericId(id);
  const row = n === null ? undefined : deps.db.select().from(logs).where(eq(logs.id, n)).get();
  if (!row) throw notFound('log entry', id);
  return row;
}

export function getLog(deps: Deps, id: string): LogDto {
  return toLogDto(logRow(deps, id));
}

/**
 * `POST /logs`: an `activity` entry stamped with the receive time and the posting credential. Posts
 * count against the ingest budget (§9 rule 4) and come at ingest rates from chatty drivers, so the
 * entry is a writer job, committed with the other jobs of its batch, like a value write: a
 * transaction each cost about 1.7 times the CPU (bench/RESULTS.md, "Hot paths, session 9"). Who it
 * is from is decided before the job, so a refused post (403, 404) takes no place in a batch; a
 * subsystem deleted in between leaves the entry naming it, as its deletion leaves every older entry
 * (§3 rule 9).
 */
export function postLog(deps: Deps, principal: Principal, body: LogCreate): Promise<LogDto> {
  const severity = body.severity === undefined ? 'info' : severityOf(body.severity);
  if (!severity) throw invalid('/severity', SEVERITY_RULE);
  const value = valueText(body.value);
  const tags = body.tags === undefined ? [] : tagsOf(body.tags, '/tags');
  const creator = creatorOf(deps, principal, body);
  const now = deps.clock.now();
  return deps.work.submit(() => {
    const row = insertRow(deps, 'logs', logs, {
      time: now,
      key: body.key ?? 'general',
      value,
      severity,
      category: 'activity',
      createdBy: creator.createdBy,
      createdByType: creator.createdByType,
      tags,
      subsystemId: creator.subsystem?.id ?? null,
      subsystemExternalId: creator.subsystem?.externalId ?? null,
      host: body.host ?? null,
      postedBy: principal.label,
      displayName: creator.displayName,
      createdAt: now,
      updatedAt: now,
    });
    const entry = toLogDto(row);
    emit(deps, 'log.created', entry);
    return entry;
  });
}

/** `PUT`/`PATCH /logs/{id}`: entries never change. */
export function refuseLogChange(): never {
  throw new AppError('method_not_allowed', 'log entries never change', undefined, { allow: 'GET, DELETE' });
}

/** `DELETE /logs/{id}`: only `activity` entries; the platform's own entries are kept (409). */
export function deleteLog(deps: Deps, principal: Principal, id: string): void {
  const row = logRow(deps, id);
  if (row.category !== 'activity') throw conflict(`${row.category} entries cannot be deleted`);
  transact(deps, () => {
    deps.db.delete(logs).where(eq(logs.id, row.id)).run();
    emit(deps, 'log.deleted', { _id: row.id, changed: [] });
    writeAuditLog(deps, principal, { key: 'log.deleted', value: `deleted log entry ${row.id}` });
  });
}

/** `DELETE /logs?before=<time>`: removes `activity` entries older than the time; returns how many. */
export function purgeActivityBefore(deps: Deps, principal: Principal, before: string | undefined): number {
  if (before === undefined || before === '') {
    throw badRequest('before is required', [{ path: '/before', message: 'is required' }]);
  }
  const cutoff = instantOfQuery(before, '/before');
  return transact(deps, () => {
    const removed = deps.db
      .delete(logs)
      .where(and(eq(logs.category, 'activity'), lt(logs.time, cutoff)))
      .returning({ id: logs.id })
      .all().length;
    writeAuditLog(deps, principal, {
      key: 'logs.purged',
      value: `deleted ${removed} activity entries older than ${new Date(cutoff).toISOString()}`,
    });
    return removed;
  });
}
