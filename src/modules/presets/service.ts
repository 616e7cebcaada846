/** Presets (§6), the read side and the look-ups the writes, apply and parameter deletes share. */
import { and, asc, count, eq, inArray, or, type SQL } from 'drizzle-orm';
import { audit } from '../../core/platform-log';
import type { Principal } from '../../core/principal';
import { presetEntries, presets, subsystems } from '../../db/schema';
import type { Deps } from '../../deps';
import { notFound } from '../../http/errors';
import { numericId } from '../../http/fields';
import { containsIgnoringCase, fieldConditions, type ListResult, type Page } from '../../http/lists';
import { emit, transact } from '../../realtime/emit';
import { parameterRows } from '../parameters/service';
import { type PresetRow, toPresetDto } from './mapper';
import { PRESET_FIELD_FILTERS, type PresetDto, type PresetEntryDto, type PresetListQuery } from './model';

export type { PresetRow };

export interface StoredEntry {
  presetId: number;
  parameterId: number;
  value: string;
}

/** The stored entries of the presets, in order, grouped by preset. */
export function entriesOf(deps: Deps, presetIds: readonly number[]): Map<number, StoredEntry[]> {
  const grouped = new Map<number, StoredEntry[]>();
  if (presetIds.length === 0) return grouped;
  const rows = deps.db
    .select({ presetId: presetEntries.presetId, parameterId: presetEntries.parameterId, value: presetEntries.value })
    .from(presetEntries)
    .where(inArray(presetEntries.presetId, [...presetIds]))
    .orderBy(asc(presetEntries.presetId), asc(presetEntries.position))
    .all();
  for (const row of rows) {
    const list = grouped.get(row.presetId) ?? [];
    list.push(row);
    grouped.set(row.presetId, list);
  }
  return grouped;
}

function toDtos(deps: Deps, rows: ReadonlyArray<{ preset: PresetRow; externalId: string }>): PresetDto[] {
  const entries = entriesOf(
    deps,
    rows.map((r) => r.preset.id),
  );
  const ids = new Set([...entries.values()].flatMap((list) => list.map((e) => e.parameterId)));
  const refs = new Map(parameterRows(deps, [...ids]).map((p) => [p.id, p.externalRef]));
  return rows.map((r) => {
    const wire: PresetEntryDto[] = (entries.get(r.preset.id) ?? []).map((e) => ({
      parameter: e.parameterId,
      externalRef: refs.get(e.parameterId) ?? '',
      value: e.value,
    }));
    return toPresetDto(r.preset, r.externalId, wire);
  });
}

function select(deps: Deps, where: SQL | undefined) {
  return deps.db
    .select({ preset: presets, externalId: subsystems.externalId })
    .from(presets)
    .innerJoin(subsystems, eq(presets.subsystemId, subsystems.id))
    .where(where);
}

/** The wire form of one stored preset. */
export function presetDto(deps: Deps, id: number): PresetDto {
  const row = select(deps, eq(presets.id, id)).get();
  const [dto] = row ? toDtos(deps, [row]) : [];
  if (!dto) throw notFound('preset', id);
  return dto;
}

/** The preset an `{id}` names (digits only), or 404. */
/** The preset with that `_id`, if any. */
export function findPreset(deps: Deps, id: number): PresetRow | undefined {
  return deps.db.select().from(presets).where(eq(presets.id, id)).get();
}

export function presetRow(deps: Deps, id: string | number): PresetRow {
  const n = typeof id === 'number' ? id : numericId(id);
  const row = n === null ? undefined : findPreset(deps, n);
  if (!row) throw notFound('preset', id);
  return row;
}

export function findPresetByRef(deps: Deps, subsystemId: number, externalRef: string): PresetRow | undefined {
  return deps.db
    .select()
    .from(presets)
    .where(and(eq(presets.subsystemId, subsystemId), eq(presets.externalRef, externalRef)))
    .get();
}

export function getPreset(deps: Deps, id: string): PresetDto {
  return presetDto(deps, presetRow(deps, id).id);
}

/** Presets in `_id` order, filtered in SQL; `subsystemId` accepts the `_id` or the externalId. */
export function listPresets(deps: Deps, query: PresetListQuery, page: Page): ListResult<PresetDto> {
  const where: SQL[] = [];
  if (query.subsystemExternalId !== undefined) where.push(eq(subsystems.externalId, query.subsystemExternalId));
  if (query.subsystemId !== undefined) {
    const n = numericId(query.subsystemId);
    where.push(n === null ? eq(subsystems.externalId, query.subsystemId) : eq(presets.subsystemId, n));
  }
  if (query.externalRef !== undefined) where.push(eq(presets.externalRef, query.externalRef));
  where.push(
    ...fieldConditions(query, PRESET_FIELD_FILTERS, {
      displayName: presets.displayName,
      description: presets.description,
    }),
  );
  if (query.fuzzy) {
    const fuzzy = or(
      containsIgnoringCase(presets.displayName, query.fuzzy),
      containsIgnoringCase(presets.externalRef, query.fuzzy),
      containsIgnoringCase(presets.description, query.fuzzy),
    );
    if (fuzzy) where.push(fuzzy);
  }
  const condition = and(...where);
  const total =
    deps.db
      .select({ n: count() })
      .from(presets)
      .innerJoin(subsystems, eq(presets.subsystemId, subsystems.id))
      .where(condition)
      .get()?.n ?? 0;
  const rows = select(deps, condition).orderBy(asc(presets.id)).limit(page.limit).offset(page.offset).all();
  return { items: toDtos(deps, rows), total };
}

/** `preset.<created|updated|deleted>` with the §0.4 data, and the audit entry of a person or token. */
export function announcePreset(
  deps: Deps,
  principal: Principal,
  change: 'created' | 'updated' | 'deleted',
  preset: { _id: number; externalRef: string | null; subsystemId: number; subsystemExternalId: string },
  changed: readonly string[],
): void {
  emit(deps, `preset.${change}`, {
    _id: preset._id,
    externalRef: preset.externalRef,
    subsystemExternalId: preset.subsystemExternalId,
    changed: [...changed],
  });
  audit(
    deps,
    principal,
    change,
    {
      kind: 'preset',
      name: `preset ${preset._id} (${preset.subsystemExternalId}/${preset.externalRef ?? '-'})`,
      subsystemId: preset.subsystemId,
      subsystemExternalId: preset.subsystemExternalId,
    },
    changed,
  );
}

/** The ids of the presets with an entry for the parameter. */
export function presetsUsing(deps: Deps, parameterId: number): number[] {
  return deps.db
    .selectDistinct({ id: presetEntries.presetId })
    .from(presetEntries)
    .where(eq(presetEntries.parameterId, parameterId))
    .all()
    .map((r) => r.id);
}

/**
 * After a forced parameter delete (whose entries went with it): the presets that held it are
 * updated and announce `parameters` as changed.
 *
 * A preset left with no entry is deleted (`preset.deleted`, audited like a delete by the caller).
 * §6 gives a preset 1–500 entries and says a forced delete removes the parameter from the presets;
 * it is silent on the last one. A preset with nothing to apply would still be listed, offered by
 * panels and answered 200 by `apply`, which sets nothing: a preset an operator trusts that does
 * nothing. The `force` the caller sent is what allowed losing its entries, and a subsystem's
 * delete takes its presets the same way (§3 rule 9). The parameter's 409 names how many presets
 * use it, so the caller sees what `force` touches before sending it.
 */
export function removeParameterFromPresets(deps: Deps, principal: Principal, presetIds: readonly number[]): void {
  if (presetIds.length === 0) return;
  transact(deps, () => {
    const left = entriesOf(deps, presetIds);
    const emptied = presetIds.filter((id) => !left.has(id));
    const kept = presetIds.filter((id) => left.has(id));
    for (const id of emptied) {
      const dto = presetDto(deps, id);
      deps.db.delete(presets).where(eq(presets.id, id)).run();
      announcePreset(deps, principal, 'deleted', dto, []);
    }
    if (kept.length === 0) return;
    deps.db.update(presets).set({ updatedAt: deps.clock.now() }).where(inArray(presets.id, kept)).run();
    for (const id of kept) announcePreset(deps, principal, 'updated', presetDto(deps, id), ['parameters']);
  });
}
