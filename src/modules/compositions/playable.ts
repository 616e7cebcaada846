/**
 * The playable a composition produces (§15 rule 1), written by this module in the unit of the
 * composition's own write: the playables module has no write for a server-built playable, and this
 * one's every field but its flags follows from the composition. Its events and audit entry are the
 * playables' own (`emitPlayable`), so the schedule hears `playable.created`/`updated` as from any
 * playable write (schedule/snapshot/listeners.ts: `Last-Modified` moves, items re-link).
 *
 * Decisions where §15 is silent:
 * - The playable is named and described as the composition, has no externalRef of its own (a
 *   composition's externalRef may be taken among the subsystem's playables), and is `static` or what
 *   the template's `durationType` is when it is made.
 * - `objects`: the slots' objects in slot order, each once.
 * - `active` follows the status only when it crosses `broken`: false on breaking, true again on
 *   re-linking; otherwise it is left as the playables' routes set it.
 * - `command` values are the stored text of each parameter, as parameter values travel (C: Requests).
 */
import { eq } from 'drizzle-orm';
import { changedFields } from '../../core/changes';
import type { Principal } from '../../core/principal';
import { playables } from '../../db/schema';
import type { Deps } from '../../deps';
import { unique } from '../../http/fields';
import { selfLink } from '../../http/links';
import { type PlayableRow, playableRowById } from '../playables/lookup';
import { emitPlayable } from '../playables/service';
import type { CompositionRow } from './mapper';

/** The playable columns a composition decides, by their wire names (the `changed` of `playable.*`). */
const WIRE = {
  displayName: 'displayName',
  description: 'description',
  command: 'command',
  duration: 'duration',
  durationType: 'durationType',
  type: 'type',
  objects: 'objects',
  templatePath: 'templatePath',
  compositionId: 'compositionId',
  active: 'active',
} as const;

type Fields = Partial<Pick<PlayableRow, keyof typeof WIRE>>;

/**
 * The command (§15 rule 1): `{"template":{group, name}, "slots":{<name>:{"self":"api/v1/objects/<_id>"}},
 * "parameters":{<externalRef>: value}}`, object paths without the leading slash as media commands have them.
 */
export function compositionCommand(row: Pick<CompositionRow, 'templatePath' | 'slots' | 'parameters'>): string {
  const slots = Object.fromEntries(row.slots.map((s) => [s.name, { self: selfLink('objects', s.objectId).slice(1) }]));
  const parameters = Object.fromEntries(row.parameters.map((p) => [p.externalRef, p.value]));
  return JSON.stringify({
    template: { group: row.templatePath.group, name: row.templatePath.name },
    slots,
    parameters,
  });
}

/** The playable a composition names, when it still exists. */
export function playableOf(deps: Deps, row: Pick<CompositionRow, 'playableId'>): PlayableRow | undefined {
  return row.playableId === null ? undefined : playableRowById(deps, row.playableId);
}

/**
 * Writes the composition's playable inside the open unit: updates `existing` (its playable, or a
 * playable being turned into its playable) with what changed, or creates one; emits `playable.*`
 * with the changed fields. `template` is the live template (undefined while broken); `wasBroken`
 * the composition's status before this write.
 */
export function savePlayable(
  deps: Deps,
  principal: Principal,
  composition: CompositionRow,
  template: PlayableRow | undefined,
  wasBroken: boolean,
  existing: PlayableRow | undefined,
): PlayableRow {
  const fields: Fields = {
    displayName: composition.displayName,
    description: composition.description,
    command: compositionCommand(composition),
    duration: composition.duration ?? template?.duration ?? existing?.duration ?? 0,
    type: 'composition',
    objects: unique(composition.slots.map((s) => s.objectId)),
    templatePath: composition.templatePath,
    compositionId: composition.id,
  };
  const broken = composition.status === 'broken';
  if (broken || wasBroken || !existing) fields.active = !broken;
  const now = deps.clock.now();
  if (!existing) {
    const created = deps.db
      .insert(playables)
      .values({
        subsystemId: composition.subsystemId,
        externalRef: null,
        displayName: composition.displayName,
        durationType: template?.durationType ?? 'static',
        metadata: {},
        objects: [],
        ...fields,
        createdAt: now,
        updatedAt: now,
      })
      .returning()
      .get();
    emitPlayable(deps, principal, 'created', created, [...Object.values(WIRE)]);
    return created;
  }
  const changed = changedFields(existing, fields);
  if (changed.length === 0) return existing;
  const stored =
    deps.db
      .update(playables)
      .set({ ...fields, updatedAt: now })
      .where(eq(playables.id, existing.id))
      .returning()
      .get() ?? existing;
  emitPlayable(
    deps,
    principal,
    'updated',
    stored,
    changed.map((key) => WIRE[key]),
  );
  return stored;
}
