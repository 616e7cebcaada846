/**
 * Creating, updating and deleting parameters (§6): the collection upsert keyed by `_id` or
 * (subsystem, externalRef) and updates by `{id}`. Integration credentials only touch parameters of
 * their own subsystems (§0.3). A value a person changes is sent to the subsystem (rule 1); a value an
 * integration caller reports is its subsystem's own and is not sent back (rule 3). `value: null` is
 * the default, here as on `PUT …/value` (values.ts `valueInput`, where the contract's silence is decided).
 */
import { eq } from 'drizzle-orm';
import { sameValue } from '../../core/changes';
import { type Principal, requireOwnWrite } from '../../core/principal';
import { requireSubsystem, type SubsystemRow, subsystemNamedBy } from '../../core/subsystems';
import { parameters } from '../../db/schema';
import type { Deps } from '../../deps';
import { conflict, invalid } from '../../http/errors';
import { cleanName, nameOfRef } from '../../http/fields';
import { upsertTarget } from '../../http/upsert';
import { transact } from '../../realtime/emit';
import { playableRowById } from '../playables/lookup';
import { presetsUsing, removeParameterFromPresets } from '../presets/service';
import type { ParameterRow } from './mapper';
import type { ParameterDto, ParameterWrite } from './model';
import { checkShape, requireFit, valueText } from './rules';
import { announce, findParameter, findParameterByRef, parameterDto, parameterRow } from './service';
import { announceValues, queueSetParameters, sourceOf, valueInput } from './values';

type Upserted = { entity: ParameterDto; created: boolean };
type Definition = Omit<
  ParameterRow,
  'id' | 'subsystemId' | 'externalRef' | 'createdAt' | 'updatedAt' | 'valueUpdatedAt'
>;

const FIELDS: ReadonlyArray<[keyof Definition, string]> = [
  ['displayName', 'displayName'],
  ['description', 'description'],
  ['type', 'type'],
  ['value', 'value'],
  ['defaultValue', 'default'],
  ['min', 'min'],
  ['max', 'max'],
  ['step', 'step'],
  ['options', 'options'],
  ['unit', 'unit'],
  ['playableId', 'playableId'],
];

/** `playableId`: a template playable of the same subsystem, or null. */
function checkPlayable(deps: Deps, subsystemId: number, playableId: number | null): number | null {
  if (playableId === null) return null;
  const playable = playableRowById(deps, playableId);
  if (!playable || playable.subsystemId !== subsystemId || playable.type !== 'template') {
    throw invalid('/playableId', 'must be a template playable of the same subsystem');
  }
  return playableId;
}

/**
 * The definition after the write, checked as a whole: min ≤ max, min/max/step only for numbers,
 * options for enums, and `default` and `value` fitting the (possibly new) type. `valueSent` says
 * whether the body set a value (a null that changes nothing sets none).
 */
function definitionOf(
  deps: Deps,
  subsystemId: number,
  body: ParameterWrite,
  current: Definition,
): { next: Definition; valueSent: boolean } {
  const next: Definition = { ...current };
  if (body.displayName !== undefined) next.displayName = cleanName(body.displayName);
  if (body.description !== undefined) next.description = body.description;
  if (body.type !== undefined) next.type = body.type;
  if (body.default !== undefined) next.defaultValue = valueText(body.default, '/default');
  if (body.min !== undefined) next.min = body.min;
  if (body.max !== undefined) next.max = body.max;
  if (body.step !== undefined) next.step = body.step;
  if (body.options !== undefined) next.options = body.options;
  if (body.unit !== undefined) next.unit = body.unit;
  if (body.playableId !== undefined) next.playableId = checkPlayable(deps, subsystemId, body.playableId);
  // null: the default; without one, accepted only when the parameter has no value either (values.ts).
  const value = body.value === undefined ? null : valueInput(body.value, next.defaultValue, '/value', current.value);
  const valueSent = value !== null;
  if (valueSent) next.value = value;
  checkShape(next);
  if (next.defaultValue !== null) requireFit(next, next.defaultValue, '/default');
  if (next.value !== null) requireFit(next, next.value, '/value');
  return { next, valueSent };
}

/** After a write that set a value: `parameter.changed`, and the message unless the subsystem reported it. */
function afterValue(deps: Deps, principal: Principal, subsystem: SubsystemRow, row: ParameterRow): void {
  announceValues(deps, subsystem.externalId, [row], sourceOf(principal));
  if (!principal.integration && row.value !== null) {
    queueSetParameters(deps, subsystem.id, [{ externalRef: row.externalRef, value: row.value }]);
  }
}

function update(deps: Deps, principal: Principal, row: ParameterRow, body: ParameterWrite): ParameterDto {
  requireOwnWrite(principal, 'parameters:write', row.subsystemId);
  const { next } = definitionOf(deps, row.subsystemId, body, row);
  const changed = FIELDS.filter(([key]) => !sameValue(row[key], next[key]));
  if (changed.length === 0) return parameterDto(deps, row.id);
  const now = deps.clock.now();
  const valueChanged = next.value !== row.value;
  return transact(deps, () => {
    const updated =
      deps.db
        .update(parameters)
        .set({ ...next, updatedAt: now, ...(valueChanged ? { valueUpdatedAt: now } : {}) })
        .where(eq(parameters.id, row.id))
        .returning()
        .get() ?? row;
    const dto = parameterDto(deps, row.id);
    announce(
      deps,
      principal,
      'updated',
      dto,
      changed.map(([, name]) => name),
    );
    if (valueChanged) afterValue(deps, principal, requireSubsystem(deps, row.subsystemId), updated);
    return dto;
  });
}

function create(
  deps: Deps,
  principal: Principal,
  subsystem: SubsystemRow,
  ref: string,
  body: ParameterWrite,
): ParameterDto {
  const blank: Definition = {
    displayName: nameOfRef(ref) ?? '',
    description: '',
    type: 'string',
    value: null,
    defaultValue: null,
    min: null,
    max: null,
    step: null,
    options: [],
    unit: null,
    playableId: null,
  };
  const { next, valueSent } = definitionOf(deps, subsystem.id, body, blank);
  const now = deps.clock.now();
  return transact(deps, () => {
    const row = deps.db
      .insert(parameters)
      .values({
        ...next,
        value: valueSent ? next.value : next.defaultValue,
        subsystemId: subsystem.id,
        externalRef: ref,
        valueUpdatedAt: valueSent ? now : null,
        createdAt: now,
        updatedAt: now,
      })
      .returning()
      .get();
    // Unnamed, and a ref of spaces names nothing: the default name needs the `_id` just given.
    if (row.displayName === '')
      deps.db
        .update(parameters)
        .set({ displayName: `Parameter ${row.id}` })
        .where(eq(parameters.id, row.id))
        .run();
    const dto = parameterDto(deps, row.id);
    announce(
      deps,
      principal,
      'created',
      dto,
      FIELDS.map(([, name]) => name),
    );
    if (valueSent) afterValue(deps, principal, subsystem, row);
    return dto;
  });
}

/** The subsystem a body names by `subsystemId` or `subsystemExternalId` (404 when unknown). */
function subsystemOf(deps: Deps, body: ParameterWrite): SubsystemRow {
  const row = subsystemNamedBy(deps, body);
  if (!row) throw invalid('/subsystemId', 'or subsystemExternalId is required');
  return row;
}

/** The subsystem and externalRef a parameter upsert without a known `_id` needs; checked for the caller. */
function keyOf(deps: Deps, principal: Principal, body: ParameterWrite): { subsystem: SubsystemRow; ref: string } {
  const subsystem = subsystemOf(deps, body);
  if (body.externalRef === undefined) throw invalid('/externalRef', 'is required');
  requireOwnWrite(principal, 'parameters:write', subsystem.id);
  return { subsystem, ref: body.externalRef };
}

/**
 * `POST`/`PUT /parameters` (C: Requests): the parameter `_id` names when it exists (an unknown `_id`
 * is ignored), else the one of subsystem + externalRef, else a new one.
 */
export function upsertParameter(deps: Deps, principal: Principal, body: ParameterWrite): Upserted {
  let key: { subsystem: SubsystemRow; ref: string } | undefined;
  const named = () => (key ??= keyOf(deps, principal, body));
  const existing = upsertTarget(
    body._id,
    (id) => findParameter(deps, id),
    () => findParameterByRef(deps, named().subsystem.id, named().ref),
  );
  if (existing) return { entity: update(deps, principal, existing, body), created: false };
  const { subsystem, ref } = named();
  return { entity: create(deps, principal, subsystem, ref, body), created: true };
}

/** `PUT`/`PATCH /parameters/{id}`. */
export function updateParameterById(deps: Deps, principal: Principal, id: string, body: ParameterWrite): ParameterDto {
  return update(deps, principal, parameterRow(deps, id), body);
}

/**
 * `DELETE /parameters/{id}`: 409 while presets use it, unless `force`, which removes it from them
 * (their entries cascade with the row; each preset announces the change, and a preset left with no
 * entry is deleted: presets/service.ts `removeParameterFromPresets` says why).
 */
export function deleteParameter(deps: Deps, principal: Principal, id: string, force: boolean): void {
  const row = parameterRow(deps, id);
  requireOwnWrite(principal, 'parameters:write', row.subsystemId);
  const using = presetsUsing(deps, row.id);
  if (using.length > 0 && !force) {
    throw conflict(
      `parameter ${row.id} is used by ${using.length} preset(s); delete with force=true to remove it from them`,
    );
  }
  const dto = parameterDto(deps, row.id);
  transact(deps, () => {
    deps.db.delete(parameters).where(eq(parameters.id, row.id)).run();
    announce(deps, principal, 'deleted', dto, []);
    removeParameterFromPresets(deps, principal, using);
  });
}
