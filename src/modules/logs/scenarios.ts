/**
 * Log scenarios (§9): the catalogue of named actions, one per (origin, action), and the records of
 * actions run, read in the logs page wrapper.
 */
import { and, asc, count, desc, eq, gte, lte, type SQL } from 'drizzle-orm';
import { iso } from '../../clock';
import { audit } from '../../core/platform-log';
import type { Principal } from '../../core/principal';
import { logScenarioRuns, logScenarios } from '../../db/schema';
import type { Deps } from '../../deps';
import { entityMeta } from '../../http/entity';
import { invalid, notFound } from '../../http/errors';
import { cleanName, numericId } from '../../http/fields';
import { instantOfQuery } from '../../http/instant';
import { fuzzyMatch, type ListResult, type Page, paginate, whereFields } from '../../http/lists';
import { upsertTarget } from '../../http/upsert';
import { emit, transact } from '../../realtime/emit';
import { logPageOf, pageTotals } from './paging';
import {
  SCENARIO_FIELD_FILTERS,
  type ScenarioDto,
  type ScenarioListQuery,
  type ScenarioRunCreate,
  type ScenarioRunDto,
  type ScenarioRunPage,
  type ScenarioRunQuery,
  type ScenarioWrite,
} from './scenario-model';

type ScenarioRow = typeof logScenarios.$inferSelect;
type RunRow = typeof logScenarioRuns.$inferSelect;

function toScenarioDto(row: ScenarioRow): ScenarioDto {
  return {
    ...entityMeta(row, 'logs/scenarios'),
    origin: row.origin,
    action: row.action,
    displayName: row.displayName,
    description: row.description,
    log: row.log,
  };
}

function toRunDto(row: RunRow): ScenarioRunDto {
  return {
    ...entityMeta(row, 'logs/scenariosLog'),
    time: iso(row.time),
    origin: row.origin,
    action: row.action,
    text: row.text,
    displayName: row.displayName,
  };
}

function findScenario(deps: Deps, id: number): ScenarioRow | undefined {
  return deps.db.select().from(logScenarios).where(eq(logScenarios.id, id)).get();
}

function scenarioRow(deps: Deps, id: string | number): ScenarioRow {
  const n = typeof id === 'number' ? id : numericId(id);
  const row = n === null ? undefined : findScenario(deps, n);
  if (!row) throw notFound('scenario', id);
  return row;
}

function byKey(deps: Deps, origin: string, action: string): ScenarioRow | undefined {
  return deps.db
    .select()
    .from(logScenarios)
    .where(and(eq(logScenarios.origin, origin), eq(logScenarios.action, action)))
    .get();
}

export function listScenarios(deps: Deps, query: ScenarioListQuery, page: Page): ListResult<ScenarioDto> {
  const all = deps.db
    .select()
    .from(logScenarios)
    .orderBy(asc(logScenarios.id))
    .all()
    .filter(
      (r) =>
        (query.origin === undefined || r.origin === query.origin) &&
        (query.action === undefined || r.action === query.action) &&
        fuzzyMatch(query.fuzzy, r.displayName, r.origin, r.action, r.description),
    )
    .map(toScenarioDto);
  return paginate(whereFields(all, query, SCENARIO_FIELD_FILTERS), page);
}

export function getScenario(deps: Deps, id: string): ScenarioDto {
  return toScenarioDto(scenarioRow(deps, id));
}

function emitScenario(deps: Deps, principal: Principal, event: string, row: ScenarioRow, changed: string[]): void {
  emit(deps, `logscenario.${event}`, { _id: row.id, changed });
  audit(
    deps,
    principal,
    event,
    { kind: 'logscenario', name: `scenario ${row.id} (${row.origin}/${row.action})` },
    changed,
  );
}

function updateScenario(deps: Deps, principal: Principal, row: ScenarioRow, body: ScenarioWrite): ScenarioDto {
  const changes: Partial<ScenarioRow> = {};
  if (body.origin !== undefined) changes.origin = body.origin;
  if (body.action !== undefined) changes.action = body.action;
  const named = nameOf(body.displayName);
  if (named !== undefined) changes.displayName = named;
  if (body.description !== undefined) changes.description = body.description;
  if (body.log !== undefined) changes.log = body.log;
  const changed = Object.entries(changes)
    .filter(([k, v]) => row[k as keyof ScenarioRow] !== v)
    .map(([k]) => k);
  if (changed.length === 0) return toScenarioDto(row);
  const other = byKey(deps, changes.origin ?? row.origin, changes.action ?? row.action);
  if (other && other.id !== row.id) throw invalid('/action', 'is already used by another scenario of this origin');
  return transact(deps, () => {
    const updated = deps.db
      .update(logScenarios)
      .set({ ...changes, updatedAt: deps.clock.now() })
      .where(eq(logScenarios.id, row.id))
      .returning()
      .get();
    emitScenario(deps, principal, 'updated', updated, changed);
    return toScenarioDto(updated);
  });
}

/**
 * `POST /logs/scenarios` (C: Requests): updates the entry named by `_id` (when it exists: an unknown
 * `_id` is ignored) or (origin, action), else creates one.
 */
export function upsertScenario(
  deps: Deps,
  principal: Principal,
  body: ScenarioWrite,
): { entity: ScenarioDto; created: boolean } {
  const { origin, action } = body;
  const existing = upsertTarget(
    body._id,
    (id) => findScenario(deps, id),
    () => (origin === undefined || action === undefined ? undefined : byKey(deps, origin, action)),
  );
  if (existing) return { entity: updateScenario(deps, principal, existing, body), created: false };
  if (origin === undefined) throw invalid('/origin', 'is required');
  if (action === undefined) throw invalid('/action', 'is required');
  const now = deps.clock.now();
  return transact(deps, () => {
    const row = deps.db
      .insert(logScenarios)
      .values({
        origin,
        action,
        displayName: nameOf(body.displayName) ?? action,
        description: body.description ?? '',
        log: body.log ?? true,
        createdAt: now,
        updatedAt: now,
      })
      .returning()
      .get();
    emitScenario(deps, principal, 'created', row, ['origin', 'action', 'displayName', 'description', 'log']);
    return { entity: toScenarioDto(row), created: true };
  });
}

export function updateScenarioById(deps: Deps, principal: Principal, id: string, body: ScenarioWrite): ScenarioDto {
  return updateScenario(deps, principal, scenarioRow(deps, id), body);
}

export function deleteScenario(deps: Deps, principal: Principal, id: string): void {
  const row = scenarioRow(deps, id);
  transact(deps, () => {
    deps.db.delete(logScenarios).where(eq(logScenarios.id, row.id)).run();
    emitScenario(deps, principal, 'deleted', row, []);
  });
}

/** `GET /logs/scenariosLog`: runs newest first in the page wrapper. */
export function listScenarioRuns(deps: Deps, query: ScenarioRunQuery): ScenarioRunPage {
  const paging = logPageOf(query);
  const conditions: SQL[] = [];
  if (query.origin !== undefined) conditions.push(eq(logScenarioRuns.origin, query.origin));
  if (query.action !== undefined) conditions.push(eq(logScenarioRuns.action, query.action));
  if (query.from !== undefined) conditions.push(gte(logScenarioRuns.time, instantOfQuery(query.from, '/from')));
  if (query.to !== undefined) conditions.push(lte(logScenarioRuns.time, instantOfQuery(query.to, '/to')));
  const where = and(...conditions);
  const total = deps.db.select({ n: count() }).from(logScenarioRuns).where(where).get()?.n ?? 0;
  const rows = deps.db
    .select()
    .from(logScenarioRuns)
    .where(where)
    .orderBy(desc(logScenarioRuns.time), desc(logScenarioRuns.id))
    .limit(paging.perPage)
    .offset((paging.page - 1) * paging.perPage)
    .all();
  return { ...pageTotals(paging, total), logs: rows.map(toRunDto) };
}

export function getScenarioRun(deps: Deps, id: string): ScenarioRunDto {
  const n = numericId(id);
  const row = n === null ? undefined : deps.db.select().from(logScenarioRuns).where(eq(logScenarioRuns.id, n)).get();
  if (!row) throw notFound('scenario run', id);
  return toRunDto(row);
}

/** A sent display name, cleaned; an empty or blank one (what field drivers send for none) is absent. */
function nameOf(sent: string | undefined): string | undefined {
  return sent === undefined || sent.trim() === '' ? undefined : cleanName(sent);
}

/**
 * `POST /logs/scenariosLog`: records an action run at the receive time. Without a `displayName` the
 * catalogue entry's name is used, else the action. Runs are data, like log posts: not audited.
 */
export function recordScenarioRun(deps: Deps, body: ScenarioRunCreate): ScenarioRunDto {
  const now = deps.clock.now();
  const displayName = nameOf(body.displayName) ?? byKey(deps, body.origin, body.action)?.displayName ?? body.action;
  return transact(deps, () => {
    const row = deps.db
      .insert(logScenarioRuns)
      .values({
        time: now,
        origin: body.origin,
        action: body.action,
        text: body.text ?? '',
        displayName,
        createdAt: now,
        updatedAt: now,
      })
      .returning()
      .get();
    const run = toRunDto(row);
    emit(deps, 'logscenario.run', run);
    return run;
  });
}
