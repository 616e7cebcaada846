/**
 * Saved log searches (§9 `/logs/presets`). A search belongs to the credential that created it
 * (`createdBy`, its `postedBy` label; `userId` for people). Private searches are visible only to
 * their owner (403 to anyone else); `isGlobal` ones to every reader. Setting `isGlobal`, and changing
 * or deleting someone else's global search, needs `logs:write` (rule 6).
 */
import { asc, eq } from 'drizzle-orm';
import { isoOrNull } from '../../clock';
import { changedFields } from '../../core/changes';
import { type Principal, requirePermission } from '../../core/principal';
import { logPresets } from '../../db/schema';
import type { Deps } from '../../deps';
import { entityMeta } from '../../http/entity';
import { forbidden, invalid, notFound } from '../../http/errors';
import { jsonLargerThanKiB, numericId, refuseNonFinite, tagsOf } from '../../http/fields';
import { instantOfBody } from '../../http/instant';
import { type ListResult, type Page, paginate, whereFields } from '../../http/lists';
import { emit, transact } from '../../realtime/emit';
import { LOG_PRESET_FIELD_FILTERS, type PresetDto, type PresetWrite } from './preset-model';

type PresetRow = typeof logPresets.$inferSelect;
/** A saved search's JSON (`filters`, `searchOptions`, `basicFilter`): at most this many KiB of UTF-8. */
const SEARCH_JSON_KIB = 16;
const CREATED = [
  'name',
  'type',
  'tags',
  'startDate',
  'endDate',
  'filters',
  'currentSearch',
  'searchOptions',
  'basicFilter',
  'isGlobal',
];

function toPresetDto(row: PresetRow): PresetDto {
  return {
    ...entityMeta(row, 'logs/presets'),
    name: row.name,
    type: row.type,
    tags: row.tags,
    startDate: isoOrNull(row.startDate),
    endDate: isoOrNull(row.endDate),
    filters: row.filters ?? null,
    currentSearch: row.currentSearch,
    searchOptions: row.searchOptions ?? null,
    basicFilter: row.basicFilter ?? null,
    isGlobal: row.isGlobal,
    userId: row.userId,
    createdBy: row.owner,
  };
}

const owns = (principal: Principal, row: PresetRow) => row.owner === principal.label;

function presetRow(deps: Deps, id: string): PresetRow {
  const n = numericId(id);
  const row = n === null ? undefined : deps.db.select().from(logPresets).where(eq(logPresets.id, n)).get();
  if (!row) throw notFound('preset', id);
  return row;
}

function readable(principal: Principal, row: PresetRow): PresetRow {
  if (!row.isGlobal && !owns(principal, row)) throw forbidden('this saved search belongs to someone else');
  return row;
}

function writable(principal: Principal, row: PresetRow): PresetRow {
  readable(principal, row);
  if (!owns(principal, row)) requirePermission(principal, 'logs:write');
  return row;
}

function jsonOf(value: unknown, path: string): unknown {
  refuseNonFinite(value, path);
  if (value !== null && jsonLargerThanKiB(value, SEARCH_JSON_KIB)) {
    throw invalid(path, `must be at most ${SEARCH_JSON_KIB} KiB`);
  }
  return value;
}

const timeOf = (value: string | null, path: string) => (value === null ? null : instantOfBody(value, path));

/** The row values a body sets; absent fields keep their value. */
function valuesOf(body: PresetWrite): Partial<PresetRow> {
  const values: Partial<PresetRow> = {};
  if (body.name !== undefined) {
    values.name = body.name.trim();
    if (values.name === '') throw invalid('/name', 'must not be blank');
  }
  if (body.type !== undefined) values.type = body.type;
  if (body.tags !== undefined) values.tags = tagsOf(body.tags, '/tags');
  if (body.startDate !== undefined) values.startDate = timeOf(body.startDate, '/startDate');
  if (body.endDate !== undefined) values.endDate = timeOf(body.endDate, '/endDate');
  if (body.filters !== undefined) values.filters = jsonOf(body.filters, '/filters');
  if (body.currentSearch !== undefined) values.currentSearch = body.currentSearch;
  if (body.searchOptions !== undefined) values.searchOptions = jsonOf(body.searchOptions, '/searchOptions');
  if (body.basicFilter !== undefined) values.basicFilter = jsonOf(body.basicFilter, '/basicFilter');
  if (body.isGlobal !== undefined) values.isGlobal = body.isGlobal;
  return values;
}

/** Every search the caller may see: their own and the global ones, in `_id` order. */
export function listPresets(
  deps: Deps,
  principal: Principal,
  query: { type?: string },
  page: Page,
): ListResult<PresetDto> {
  const all = deps.db
    .select()
    .from(logPresets)
    .orderBy(asc(logPresets.id))
    .all()
    .filter((r) => (r.isGlobal || owns(principal, r)) && (query.type === undefined || r.type === query.type))
    .map(toPresetDto);
  return paginate(whereFields(all, query, LOG_PRESET_FIELD_FILTERS), page);
}

export function getPreset(deps: Deps, principal: Principal, id: string): PresetDto {
  return toPresetDto(readable(principal, presetRow(deps, id)));
}

export function createPreset(deps: Deps, principal: Principal, body: PresetWrite): PresetDto {
  const name = body.name;
  if (name === undefined) throw invalid('/name', 'is required');
  const values = valuesOf(body);
  if (values.isGlobal) requirePermission(principal, 'logs:write');
  const now = deps.clock.now();
  return transact(deps, () => {
    const row = deps.db
      .insert(logPresets)
      .values({
        userId: principal.userId,
        owner: principal.label,
        name: values.name ?? name,
        type: values.type ?? 'logs',
        tags: values.tags ?? [],
        startDate: values.startDate ?? null,
        endDate: values.endDate ?? null,
        filters: values.filters ?? null,
        currentSearch: values.currentSearch ?? '',
        searchOptions: values.searchOptions ?? null,
        basicFilter: values.basicFilter ?? null,
        isGlobal: values.isGlobal ?? false,
        createdAt: now,
        updatedAt: now,
      })
      .returning()
      .get();
    emit(deps, 'logpreset.created', { _id: row.id, changed: CREATED });
    return toPresetDto(row);
  });
}

export function updatePreset(deps: Deps, principal: Principal, id: string, body: PresetWrite): PresetDto {
  const row = writable(principal, presetRow(deps, id));
  const values = valuesOf(body);
  if (values.isGlobal === true && !row.isGlobal) requirePermission(principal, 'logs:write');
  const changed = changedFields(row, values);
  if (changed.length === 0) return toPresetDto(row);
  return transact(deps, () => {
    const updated = deps.db
      .update(logPresets)
      .set({ ...values, updatedAt: deps.clock.now() })
      .where(eq(logPresets.id, row.id))
      .returning()
      .get();
    emit(deps, 'logpreset.updated', { _id: row.id, changed });
    return toPresetDto(updated);
  });
}

export function deletePreset(deps: Deps, principal: Principal, id: string): void {
  const row = writable(principal, presetRow(deps, id));
  transact(deps, () => {
    deps.db.delete(logPresets).where(eq(logPresets.id, row.id)).run();
    emit(deps, 'logpreset.deleted', { _id: row.id, changed: [] });
  });
}
