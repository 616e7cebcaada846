/**
 * Creating, updating and deleting presets (§6): the collection upsert keyed by `_id` or
 * (subsystem, externalRef) when the preset has an externalRef, updates and deletes by `{id}`.
 * Every entry names a parameter of the preset's own subsystem and carries a value that fits it.
 */
import { eq } from 'drizzle-orm';
import { sameValue } from '../../core/changes';
import { type Principal, requireOwnWrite } from '../../core/principal';
import { type SubsystemRow, subsystemNamedBy } from '../../core/subsystems';
import { presetEntries, presets } from '../../db/schema';
import type { Deps } from '../../deps';
import { invalid } from '../../http/errors';
import { cleanName } from '../../http/fields';
import { upsertTarget } from '../../http/upsert';
import { transact } from '../../realtime/emit';
import { misfit, resolveParameter } from '../parameters/service';
import { valueInput } from '../parameters/values';
import type { PresetDto, PresetWrite } from './model';
import {
  announcePreset,
  entriesOf,
  findPreset,
  findPresetByRef,
  type PresetRow,
  presetDto,
  presetRow,
} from './service';

type Upserted = { entity: PresetDto; created: boolean };
type Entry = { parameterId: number; value: string };

/** Each entry resolved within the subsystem and checked; a parameter may appear once. */
function entriesFrom(deps: Deps, subsystemId: number, sent: NonNullable<PresetWrite['parameters']>): Entry[] {
  const seen = new Set<number>();
  return sent.map((entry, n) => {
    const parameter = resolveParameter(deps, subsystemId, entry.parameter, `/parameters/${n}/parameter`);
    if (seen.has(parameter.id)) throw invalid(`/parameters/${n}/parameter`, 'is already in the preset');
    seen.add(parameter.id);
    const path = `/parameters/${n}/value`;
    if (entry.value === undefined) throw invalid(path, 'is required');
    const value = valueInput(entry.value, parameter.defaultValue, path);
    const problem = misfit(parameter, value);
    if (problem) throw invalid(path, problem);
    return { parameterId: parameter.id, value };
  });
}

function replaceEntries(deps: Deps, presetId: number, entries: readonly Entry[]): void {
  deps.db.delete(presetEntries).where(eq(presetEntries.presetId, presetId)).run();
  deps.db
    .insert(presetEntries)
    .values(entries.map((e, position) => ({ presetId, position, parameterId: e.parameterId, value: e.value })))
    .run();
}

function update(deps: Deps, principal: Principal, row: PresetRow, body: PresetWrite): PresetDto {
  requireOwnWrite(principal, 'parameters:write', row.subsystemId);
  const values: Partial<PresetRow> = {};
  if (body.displayName !== undefined) values.displayName = cleanName(body.displayName);
  if (body.description !== undefined) values.description = body.description;
  const entries = body.parameters === undefined ? undefined : entriesFrom(deps, row.subsystemId, body.parameters);
  const changed = Object.entries(values)
    .filter(([key, value]) => row[key as keyof PresetRow] !== value)
    .map(([key]) => key);
  const stored = entriesOf(deps, [row.id]).get(row.id) ?? [];
  if (
    entries &&
    !sameValue(
      entries,
      stored.map((e) => ({ parameterId: e.parameterId, value: e.value })),
    )
  ) {
    changed.push('parameters');
  }
  if (changed.length === 0) return presetDto(deps, row.id);
  return transact(deps, () => {
    deps.db
      .update(presets)
      .set({ ...values, updatedAt: deps.clock.now() })
      .where(eq(presets.id, row.id))
      .run();
    if (entries && changed.includes('parameters')) replaceEntries(deps, row.id, entries);
    const dto = presetDto(deps, row.id);
    announcePreset(deps, principal, 'updated', dto, changed);
    return dto;
  });
}

function create(
  deps: Deps,
  principal: Principal,
  subsystem: SubsystemRow,
  ref: string | null,
  body: PresetWrite,
): PresetDto {
  if (body.displayName === undefined) throw invalid('/displayName', 'is required');
  const displayName = cleanName(body.displayName);
  if (body.parameters === undefined) throw invalid('/parameters', 'is required');
  const entries = entriesFrom(deps, subsystem.id, body.parameters);
  const now = deps.clock.now();
  return transact(deps, () => {
    const row = deps.db
      .insert(presets)
      .values({
        subsystemId: subsystem.id,
        externalRef: ref,
        displayName,
        description: body.description ?? '',
        createdAt: now,
        updatedAt: now,
      })
      .returning({ id: presets.id })
      .get();
    replaceEntries(deps, row.id, entries);
    const dto = presetDto(deps, row.id);
    announcePreset(deps, principal, 'created', dto, ['externalRef', 'displayName', 'description', 'parameters']);
    return dto;
  });
}

/** The subsystem a body names by `subsystemId` or `subsystemExternalId` (404 when unknown). */
function subsystemOf(deps: Deps, body: PresetWrite): SubsystemRow {
  const row = subsystemNamedBy(deps, body);
  if (!row) throw invalid('/subsystemId', 'or subsystemExternalId is required');
  return row;
}

/** The subsystem a preset upsert without a known `_id` is about, checked for the caller. */
function ownSubsystem(deps: Deps, principal: Principal, body: PresetWrite): SubsystemRow {
  const subsystem = subsystemOf(deps, body);
  requireOwnWrite(principal, 'parameters:write', subsystem.id);
  return subsystem;
}

/**
 * `POST`/`PUT /presets` (C: Requests): the preset `_id` names when it exists (an unknown `_id` is
 * ignored), else the one of subsystem + externalRef, else a new one; a body without an externalRef
 * and a known `_id` always creates.
 */
export function upsertPreset(deps: Deps, principal: Principal, body: PresetWrite): Upserted {
  let sub: SubsystemRow | undefined;
  const subsystem = () => (sub ??= ownSubsystem(deps, principal, body));
  const ref = body.externalRef ?? null;
  const existing = upsertTarget(
    body._id,
    (id) => findPreset(deps, id),
    () => (ref === null ? undefined : findPresetByRef(deps, subsystem().id, ref)),
  );
  if (existing) return { entity: update(deps, principal, existing, body), created: false };
  return { entity: create(deps, principal, subsystem(), ref, body), created: true };
}

/** `PUT`/`PATCH /presets/{id}`. */
export function updatePresetById(deps: Deps, principal: Principal, id: string, body: PresetWrite): PresetDto {
  return update(deps, principal, presetRow(deps, id), body);
}

/** `DELETE /presets/{id}`: the preset and its entries. */
export function deletePreset(deps: Deps, principal: Principal, id: string): void {
  const row = presetRow(deps, id);
  requireOwnWrite(principal, 'parameters:write', row.subsystemId);
  const dto = presetDto(deps, row.id);
  transact(deps, () => {
    deps.db.delete(presets).where(eq(presets.id, row.id)).run();
    announcePreset(deps, principal, 'deleted', dto, []);
  });
}
