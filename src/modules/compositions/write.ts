/**
 * Creating and updating compositions (§15): the collection upsert keyed by `_id` or subsystem +
 * externalRef (also under `/subsystem(s)/{id}/compositions`, the subsystem from the path), updates
 * by `{id}`, and the upsert of the composition attached to a playable. Every save writes the
 * produced playable in the same unit (rule 1, playable.ts). Decisions are in service.ts.
 *
 * When a write names another template, the slots and parameters it keeps are checked against the
 * new template as if sent (a 400 names them by their place in the stored list).
 */
import { and, eq } from 'drizzle-orm';
import { changedFields } from '../../core/changes';
import { type Principal, requireOwnWrite } from '../../core/principal';
import { requireSubsystem, type SubsystemRow, subsystemNamedBy } from '../../core/subsystems';
import { compositions } from '../../db/schema';
import type { Deps } from '../../deps';
import { conflict, invalid, notFound } from '../../http/errors';
import { cleanName } from '../../http/fields';
import { upsertTarget } from '../../http/upsert';
import { transact } from '../../realtime/emit';
import { type PlayableRow, playableRowById } from '../playables/lookup';
import { parametersOf, slotsOf, statusOf, type TemplateRef, templateOf } from './checks';
import type { CompositionDto, CompositionWrite } from './model';
import { playableOf, savePlayable } from './playable';
import {
  type CompositionRow,
  compositionDto,
  compositionRowById,
  emitComposition,
  requireComposition,
} from './service';

type Changes = Partial<
  Pick<
    CompositionRow,
    'displayName' | 'description' | 'templatePath' | 'templateId' | 'slots' | 'parameters' | 'duration' | 'status'
  >
>;

/** The changed columns a `composition.updated` names (`templateId` travels inside `templatePath`). */
const WIRE = ['displayName', 'description', 'templatePath', 'slots', 'parameters', 'duration', 'status'] as const;

export interface Upserted {
  entity: CompositionDto;
  created: boolean;
}

/** `duration`: null (or the one it shows while following the template) follows the template. */
function durationOf(sent: CompositionWrite['duration'], row: CompositionRow | undefined, shown: number | null) {
  if (sent === undefined) return row?.duration ?? null;
  if (sent === null || (row?.duration === null && sent === shown)) return null;
  return sent;
}

/** The checked columns a body leads to, with the template they were checked against. */
function draftOf(
  deps: Deps,
  subsystemId: number,
  body: CompositionWrite,
  row: CompositionRow | undefined,
  playable: PlayableRow | undefined,
): { changes: Changes; template: TemplateRef } {
  const template = templateOf(deps, subsystemId, body.templatePath, row?.templatePath);
  const sameTemplate = row !== undefined && row.templateId === template.path._id;
  const slots = slotsOf(deps, body.slots ?? row?.slots ?? [], template, sameTemplate ? (row?.slots ?? []) : []);
  const parameters = parametersOf(
    deps,
    subsystemId,
    body.parameters ?? row?.parameters ?? [],
    template,
    sameTemplate ? (row?.parameters ?? []) : [],
  );
  const changes: Changes = {
    templatePath: template.path,
    templateId: template.path._id,
    slots,
    parameters,
    duration: durationOf(body.duration, row, row?.duration ?? playable?.duration ?? null),
    status: statusOf(deps, template.row, slots),
  };
  if (body.displayName !== undefined) changes.displayName = cleanName(body.displayName);
  if (body.description !== undefined) changes.description = body.description;
  return { changes, template };
}

/**
 * Creates a composition of `subsystem` and its playable; `existing` is a playable of the subsystem
 * that becomes its playable (`PUT /subsystems/{id}/compositions/{playableId}`), named after it
 * unless the body names the composition.
 */
function createComposition(
  deps: Deps,
  principal: Principal,
  subsystem: SubsystemRow,
  body: CompositionWrite,
  existing?: PlayableRow,
): CompositionDto {
  requireOwnWrite(principal, 'media:write', subsystem.id);
  const displayName = body.displayName ?? existing?.displayName;
  if (displayName === undefined) throw invalid('/displayName', 'is required');
  const externalRef = body.externalRef ?? null;
  if (externalRef !== null && byRef(deps, subsystem.id, externalRef)) {
    throw conflict(`a composition with externalRef ${externalRef} exists in subsystem ${subsystem.externalId}`);
  }
  const { changes, template } = draftOf(deps, subsystem.id, body, undefined, undefined);
  const now = deps.clock.now();
  const id = transact(deps, () => {
    const inserted = deps.db
      .insert(compositions)
      .values({
        subsystemId: subsystem.id,
        externalRef,
        displayName: cleanName(displayName),
        description: '',
        templatePath: template.path,
        templateId: template.path._id,
        slots: [],
        parameters: [],
        ...changes,
        playableId: existing?.id ?? null,
        createdAt: now,
        updatedAt: now,
      })
      .returning()
      .get();
    const playable = savePlayable(deps, principal, inserted, template.row, false, existing);
    deps.db.update(compositions).set({ playableId: playable.id }).where(eq(compositions.id, inserted.id)).run();
    emitComposition(deps, principal, 'created', { ...inserted, playableId: playable.id }, [...WIRE]);
    return inserted.id;
  });
  return compositionDto(deps, id);
}

/** Updates the fields a body sends (absent ones keep their value) and writes the playable again. */
function updateComposition(
  deps: Deps,
  principal: Principal,
  row: CompositionRow,
  body: CompositionWrite,
): CompositionDto {
  requireOwnWrite(principal, 'media:write', row.subsystemId);
  const playable = playableOf(deps, row);
  const { changes, template } = draftOf(deps, row.subsystemId, body, row, playable);
  const changed = changedFields(row, changes, WIRE);
  transact(deps, () => {
    const stored =
      changed.length === 0
        ? row
        : (deps.db
            .update(compositions)
            .set({ ...changes, updatedAt: deps.clock.now() })
            .where(eq(compositions.id, row.id))
            .returning()
            .get() ?? row);
    const saved = savePlayable(deps, principal, stored, template.row, row.status === 'broken', playable);
    const relinked = saved.id !== row.playableId;
    if (relinked) deps.db.update(compositions).set({ playableId: saved.id }).where(eq(compositions.id, row.id)).run();
    if (changed.length > 0 || relinked) {
      const fields = relinked ? [...changed, 'playableId'] : changed;
      emitComposition(deps, principal, 'updated', { ...stored, playableId: saved.id }, fields);
    }
  });
  return compositionDto(deps, row.id);
}

function byRef(deps: Deps, subsystemId: number, externalRef: string): CompositionRow | undefined {
  return deps.db
    .select()
    .from(compositions)
    .where(and(eq(compositions.subsystemId, subsystemId), eq(compositions.externalRef, externalRef)))
    .get();
}

/** `PUT`/`PATCH /compositions/{id}`. */
export function updateCompositionById(
  deps: Deps,
  principal: Principal,
  id: string,
  body: CompositionWrite,
): CompositionDto {
  return updateComposition(deps, principal, requireComposition(deps, id), body);
}

/**
 * `POST`/`PUT /compositions` (C: Requests) and `POST /subsystem(s)/{id}/compositions` (`scope`, the
 * path's subsystem, which wins over the body's): updates the composition the body names by `_id`
 * (an unknown `_id` is ignored; one of another subsystem than the path's is 404) or by subsystem +
 * externalRef; otherwise creates one. Unknown subsystem → 404.
 */
export function upsertComposition(
  deps: Deps,
  principal: Principal,
  body: CompositionWrite,
  scope?: SubsystemRow,
): Upserted {
  let sub: SubsystemRow | undefined;
  const subsystem = () => {
    sub ??= scope ?? subsystemNamedBy(deps, body);
    if (!sub) throw invalid('/subsystemId', 'is required');
    return sub;
  };
  const ref = body.externalRef;
  const existing = upsertTarget(
    body._id,
    (id) => {
      const row = compositionRowById(deps, id);
      if (row && scope && row.subsystemId !== scope.id) throw notFound('composition', id);
      return row;
    },
    () => (ref == null ? undefined : byRef(deps, subsystem().id, ref)),
  );
  if (existing) return { entity: updateComposition(deps, principal, existing, body), created: false };
  return { entity: createComposition(deps, principal, subsystem(), body), created: true };
}

/** `POST /subsystem(s)/{id}/compositions`: the upsert within the path's subsystem (404 when unknown). */
export function upsertSubsystemComposition(
  deps: Deps,
  principal: Principal,
  subsystem: string,
  body: CompositionWrite,
): Upserted {
  return upsertComposition(deps, principal, body, requireSubsystem(deps, subsystem));
}

/**
 * `PUT /subsystems/{id}/compositions/{playableId}`: updates the composition whose playable that is
 * (200), or makes the playable a new composition's playable (201: its type becomes `composition`,
 * rule 1 rewrites it). 404 when the playable is not that subsystem's; 400 for a `template` playable.
 */
export function upsertCompositionOfPlayable(
  deps: Deps,
  principal: Principal,
  subsystemKey: string,
  playableId: string,
  body: CompositionWrite,
): Upserted {
  const subsystem = requireSubsystem(deps, subsystemKey);
  const playable = playableRowById(deps, playableId);
  if (!playable || playable.subsystemId !== subsystem.id) throw notFound('playable', `${subsystemKey}/${playableId}`);
  if (playable.type === 'template') {
    throw invalid(
      '/playableId',
      "is a template playable, which is a base for compositions, not a composition's playable",
    );
  }
  const owner = playable.compositionId === null ? undefined : compositionRowById(deps, playable.compositionId);
  if (owner) return { entity: updateComposition(deps, principal, owner, body), created: false };
  return { entity: createComposition(deps, principal, subsystem, body, playable), created: true };
}
