/**
 * The field rules of §15 a schema cannot say, and the status they lead to. Each rule throws the one
 * validation error at the JSON pointer of the field that breaks it. What was already stored and is
 * sent back unchanged is kept without looking again (a composition read and PUT back whole, C:
 * Requests, is never refused because its template, an object or a parameter went meanwhile).
 */
import type { CompositionParameter, CompositionSlot, CompositionStatus, TemplatePath } from '../../db/schema';
import type { Deps } from '../../deps';
import { invalid } from '../../http/errors';
import { numericId } from '../../http/fields';
import type { ObjectRow } from '../objects/mapper';
import { mediaObject, mediaObjectsByIds } from '../objects/media-playable';
import { valueText } from '../parameters/rules';
import { findParameterByRef, misfit, type ParameterRow, parameterRows } from '../parameters/service';
import { templatePathOf } from '../playables/checks';
import { type PlayableRow, playableRowById } from '../playables/lookup';
import type { CompositionWrite } from './model';

/** A media slot a template lists (`metadata.slots`, §14): its name and the object types it takes (any when null). */
export interface TemplateSlot {
  name: string;
  types: string[] | null;
}

/** The template a composition names and, while it exists as a template of the subsystem, its row. */
export interface TemplateRef {
  path: TemplatePath;
  row: PlayableRow | undefined;
}

/** The row when `id` names a `template` playable of the subsystem; undefined when it is gone or is no template any more. */
export function liveTemplate(deps: Deps, subsystemId: number, id: number): PlayableRow | undefined {
  const row = playableRowById(deps, id);
  return row?.type === 'template' && row.subsystemId === subsystemId ? row : undefined;
}

/** A composition's `templatePath` as the template names itself (the template's group and displayName). */
export const pathOf = (template: PlayableRow): TemplatePath => ({
  group: template.groupName,
  name: template.displayName,
  _id: template.id,
});

/**
 * `templatePath`: `_id` a template playable of the same subsystem, or (interface level 2.4) `group`
 * and `name` naming exactly one (playables/checks.ts, the same messages). The stored one sent back
 * with its `_id` is kept even when that template is gone (the composition stays broken).
 */
export function templateOf(
  deps: Deps,
  subsystemId: number,
  sent: CompositionWrite['templatePath'],
  stored: TemplatePath | undefined,
): TemplateRef {
  if (sent === undefined && stored) {
    const row = liveTemplate(deps, subsystemId, stored._id);
    return { path: row ? pathOf(row) : stored, row };
  }
  if (sent == null) throw invalid('/templatePath', 'is required');
  if (stored && sent._id === stored._id) {
    const row = liveTemplate(deps, subsystemId, stored._id);
    return { path: row ? pathOf(row) : stored, row };
  }
  const found = templatePathOf(deps, subsystemId, null, sent);
  const row = found ? liveTemplate(deps, subsystemId, found._id) : undefined;
  if (!row) throw invalid('/templatePath/_id', 'must name a template playable of the same subsystem');
  return { path: pathOf(row), row };
}

/** The slots a template lists, or null when its `metadata.slots` is not a list (then any slot name is taken). */
export function templateSlots(template: PlayableRow | undefined): TemplateSlot[] | null {
  const listed = template?.metadata.slots;
  if (!Array.isArray(listed)) return null;
  const out: TemplateSlot[] = [];
  for (const entry of listed as unknown[]) {
    if (entry === null || typeof entry !== 'object') continue;
    const { name, types } = entry as { name?: unknown; types?: unknown };
    if (typeof name !== 'string' || name === '') continue;
    const kinds = Array.isArray(types) ? types.filter((x): x is string => typeof x === 'string') : [];
    out.push({ name, types: kinds.length > 0 ? kinds : null });
  }
  return out;
}

/** Whether an object's known content is of a type the slot takes (content not known yet: not decided). */
function typeFits(slot: TemplateSlot | undefined, object: ObjectRow): boolean {
  const type = object.media?.type;
  return !slot?.types || type === undefined || slot.types.includes(type);
}

/**
 * `slots`: names the template lists (any name when it lists none or is gone), each once; objects of
 * cms-media that are not purged (read in one query), of a type the slot takes when its content is known.
 */
export function slotsOf(
  deps: Deps,
  sent: NonNullable<CompositionWrite['slots']>,
  template: TemplateRef,
  stored: readonly CompositionSlot[],
): CompositionSlot[] {
  const listed = template.row ? templateSlots(template.row) : null;
  const kept = new Set(stored.map((s) => `${s.name}\n${s.objectId}`));
  const objects = mediaObjectsByIds(
    deps,
    sent.filter((s) => !kept.has(`${s.name}\n${s.objectId}`)).map((s) => s.objectId),
  );
  const seen = new Set<string>();
  return sent.map((slot, i) => {
    const spec = listed?.find((s) => s.name === slot.name);
    if (listed && !spec) throw invalid(`/slots/${i}/name`, 'is not a slot of the template');
    if (seen.has(slot.name)) throw invalid(`/slots/${i}/name`, 'is filled twice');
    seen.add(slot.name);
    if (!kept.has(`${slot.name}\n${slot.objectId}`)) {
      const object = objects.get(slot.objectId);
      if (!object) throw invalid(`/slots/${i}/objectId`, 'names no object in cms-media');
      if (!typeFits(spec, object)) throw invalid(`/slots/${i}/objectId`, `must be ${spec?.types?.join(' or ')} media`);
    }
    return { name: slot.name, objectId: slot.objectId };
  });
}

/** The template's parameter a key names: `_id` (digits) first, else externalRef, of the same subsystem. */
function templateParameter(
  deps: Deps,
  subsystemId: number,
  templateId: number | null,
  key: string | number,
): ParameterRow | undefined {
  const id = typeof key === 'number' ? key : numericId(key);
  const byId = id === null ? undefined : parameterRows(deps, [id])[0];
  const row = byId ?? (typeof key === 'string' ? findParameterByRef(deps, subsystemId, key) : undefined);
  return row && row.subsystemId === subsystemId && templateId !== null && row.playableId === templateId
    ? row
    : undefined;
}

/** Why a value does not fit its parameter, or null; an `object` parameter takes a cms-media object's `_id`. */
function valueProblem(deps: Deps, parameter: ParameterRow, text: string): string | null {
  if (parameter.type !== 'object') return misfit(parameter, text);
  const id = numericId(text);
  return id !== null && mediaObject(deps, id) ? null : 'names no object in cms-media';
}

/**
 * `parameters`: each a parameter (§6) whose `playableId` is the template, named once; the value as
 * text (null: the parameter's default) fitting its type. An entry stored with the same value is kept.
 */
export function parametersOf(
  deps: Deps,
  subsystemId: number,
  sent: NonNullable<CompositionWrite['parameters']>,
  template: TemplateRef,
  stored: readonly CompositionParameter[],
): CompositionParameter[] {
  const seen = new Set<number>();
  return sent.map((entry, i) => {
    const text = valueText(entry.value, `/parameters/${i}/value`);
    const same = stored.find(
      (s) => (s.parameter === entry.parameter || s.externalRef === entry.parameter) && s.value === text,
    );
    const out = same ?? fresh(deps, subsystemId, template, entry.parameter, text, i);
    if (seen.has(out.parameter)) throw invalid(`/parameters/${i}/parameter`, 'is given twice');
    seen.add(out.parameter);
    return out;
  });
}

function fresh(
  deps: Deps,
  subsystemId: number,
  template: TemplateRef,
  key: string | number,
  text: string | null,
  i: number,
): CompositionParameter {
  const parameter = templateParameter(deps, subsystemId, template.row?.id ?? null, key);
  if (!parameter) throw invalid(`/parameters/${i}/parameter`, 'does not belong to the template');
  const value = text ?? parameter.defaultValue;
  if (value === null) throw invalid(`/parameters/${i}/value`, 'must not be null when the parameter has no default');
  const problem = valueProblem(deps, parameter, value);
  if (problem) throw invalid(`/parameters/${i}/value`, problem);
  return { parameter: parameter.id, externalRef: parameter.externalRef, value };
}

/**
 * `broken` while the template is gone; `ready` when every slot it lists is filled and every slot's
 * object is uploaded and of a type its slot takes; `draft` otherwise.
 */
export function statusOf(
  deps: Deps,
  template: PlayableRow | undefined,
  slots: readonly CompositionSlot[],
): CompositionStatus {
  if (!template) return 'broken';
  const listed = templateSlots(template) ?? [];
  const objects = mediaObjectsByIds(
    deps,
    slots.map((s) => s.objectId),
  );
  const filled = listed.every((l) => slots.some((s) => s.name === l.name));
  const playable = slots.every((s) => {
    const object = objects.get(s.objectId);
    return (
      object?.status === 'uploaded' &&
      typeFits(
        listed.find((l) => l.name === s.name),
        object,
      )
    );
  });
  return filled && playable ? 'ready' : 'draft';
}
