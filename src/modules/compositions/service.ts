/**
 * Compositions (§15): a template playable's media slots and parameters filled with chosen media and
 * values, producing a playable of their own that the schedule can use. This file: reads, lists,
 * events and the delete; write.ts creates and updates, playable.ts writes the produced playable,
 * listeners.ts follows templates and media, preview.ts queues previews.
 *
 * Decisions where §15 is silent:
 * - `templatePath` is always the template's own `{group (its group), name (its displayName), _id}`,
 *   whatever group or name a client sent with the `_id`; a template renamed or moved to another group
 *   takes its compositions' paths (and commands) along. While broken, the path still names the
 *   template that went, so a template registered again with that group and name re-links it (rule 2).
 * - A template whose `type` stops being `template` counts as gone (broken) until it is one again.
 * - Slots: `metadata.slots` of the template, when it is a list, names every slot there is (an empty
 *   list: none); when it is not a list, any slot name is taken. `types` (when given) are object
 *   types (`video`, `image`, `audio`, …): an object whose content is known must be one of them; one
 *   without content yet is taken and makes the composition a draft until its upload fits. Objects
 *   are cms-media objects not purged, whatever their status, as playables take them (§14). While
 *   broken, slot names are not checked (the list that named them went with the template).
 * - Status: `ready` needs every listed slot filled and every slot's object uploaded and of a fitting
 *   type; a template listing no slots only needs the chosen objects uploaded. It is stored (so the
 *   list filters on it) and kept exact: media uploaded, deleted or restored, and template changes,
 *   recompute it in the unit of their own write (listeners.ts).
 * - Parameters: a parameter "of the template" is one whose `playableId` (§6) is the template's
 *   `_id`. An entry names it by `_id` or externalRef and is stored as `{parameter (_id), externalRef,
 *   value (text)}`; a null value takes the parameter's default. An `object` parameter takes the
 *   `_id` of a cms-media object. Values stay as stored when a parameter changes or goes later.
 * - `duration`: null (or never sent) follows the template's; the wire shows the one it plays. A
 *   duration equal to the one shown is not taken as its own (a read sent back whole changes nothing).
 * - A save that changes nothing emits nothing. Every change emits `composition.updated` with the
 *   changed fields and, when the produced playable changed, `playable.updated`.
 * - "Scheduled" (the 409 of DELETE): a scheduled item, playlist entry or block entry names its
 *   playable. With `force=true` they stay and show the playable missing (§14 rule 2).
 * - Permissions (§0.3): `media:read` reads; writes and previews need `media:write` or the
 *   integration role, with a credential limited to some subsystems acting for the composition's
 *   subsystem (and a preview's target).
 */
import { and, asc, eq, type SQL, sql } from 'drizzle-orm';
import { audit } from '../../core/platform-log';
import { type Principal, requireOwnWrite } from '../../core/principal';
import { findSubsystem, requireSubsystem } from '../../core/subsystems';
import { compositions, playables, subsystems } from '../../db/schema';
import type { Deps } from '../../deps';
import { conflict, notFound } from '../../http/errors';
import { numericId } from '../../http/fields';
import { fieldConditions, fuzzyMatch, type ListResult, type Page, paginate } from '../../http/lists';
import { emit, transact } from '../../realtime/emit';
import { emitPlayable } from '../playables/service';
import { loadSchedule } from '../schedule/snapshot/load';
import { type CompositionRow, toCompositionDto } from './mapper';
import { COMPOSITION_FIELD_FILTERS, type CompositionDto, type CompositionListQuery } from './model';
import { playableOf } from './playable';

export type { CompositionRow };

const joined = {
  composition: compositions,
  subsystemExternalId: subsystems.externalId,
  playableDuration: playables.duration,
};

function select(deps: Deps, where: SQL | undefined) {
  return deps.db
    .select(joined)
    .from(compositions)
    .innerJoin(subsystems, eq(subsystems.id, compositions.subsystemId))
    .leftJoin(playables, eq(playables.id, compositions.playableId))
    .where(where);
}

/** The composition an `{id}` (its `_id`) names, or undefined. */
export function compositionRowById(deps: Deps, id: string | number): CompositionRow | undefined {
  const n = typeof id === 'number' ? id : numericId(id);
  return n === null ? undefined : deps.db.select().from(compositions).where(eq(compositions.id, n)).get();
}

/** The composition an `{id}` names, or 404. */
export function requireComposition(deps: Deps, id: string | number): CompositionRow {
  const row = compositionRowById(deps, id);
  if (!row) throw notFound('composition', id);
  return row;
}

/** The wire form of a stored composition. */
export function compositionDto(deps: Deps, id: number): CompositionDto {
  const found = select(deps, eq(compositions.id, id)).get();
  if (!found) throw notFound('composition', id);
  return toCompositionDto(found.composition, found.subsystemExternalId, found.playableDuration);
}

/** `GET /compositions/{id}`. */
export function getComposition(deps: Deps, id: string): CompositionDto {
  return compositionDto(deps, requireComposition(deps, id).id);
}

function conditionsOf(deps: Deps, query: CompositionListQuery, subsystemId?: number): SQL[] | null {
  const where: SQL[] = [];
  if (subsystemId !== undefined) where.push(eq(compositions.subsystemId, subsystemId));
  if (query.subsystemId !== undefined) {
    const owner = findSubsystem(deps, query.subsystemId);
    if (!owner) return null;
    where.push(eq(compositions.subsystemId, owner.id));
  }
  if (query.subsystemExternalId !== undefined) where.push(eq(subsystems.externalId, query.subsystemExternalId));
  if (query.externalRef !== undefined) where.push(eq(compositions.externalRef, query.externalRef));
  if (query.status !== undefined) where.push(eq(compositions.status, query.status));
  const template = query['templatePath._id'];
  if (template !== undefined) where.push(eq(compositions.templateId, Number(template)));
  where.push(
    ...fieldConditions(query, COMPOSITION_FIELD_FILTERS, {
      displayName: compositions.displayName,
      description: compositions.description,
      duration: sql`coalesce(${compositions.duration}, ${playables.duration}, 0)`,
      playableId: compositions.playableId,
    }),
  );
  return where;
}

/**
 * Compositions in `_id` order, filtered by exact `subsystemExternalId`, `subsystemId` (`_id` or
 * externalId), `externalRef`, `status`, `templatePath._id`, the other scalar fields (`COMPOSITION_FIELD_FILTERS`) and `fuzzy` (displayName, externalRef,
 * description). `subsystemId` narrows to one subsystem (the `/subsystem/{id}/compositions` routes).
 */
export function listCompositions(
  deps: Deps,
  query: CompositionListQuery,
  page: Page,
  subsystemId?: number,
): ListResult<CompositionDto> {
  const where = conditionsOf(deps, query, subsystemId);
  if (where === null) return { items: [], total: 0 };
  const rows = select(deps, and(...where))
    .orderBy(asc(compositions.id))
    .all()
    .filter(({ composition: c }) => fuzzyMatch(query.fuzzy, c.displayName, c.externalRef, c.description));
  const { items, total } = paginate(rows, page);
  return { items: items.map((r) => toCompositionDto(r.composition, r.subsystemExternalId, r.playableDuration)), total };
}

/** `GET /subsystem(s)/{id}/compositions`: one subsystem's (`_id` or externalId; 404 when unknown). */
export function listSubsystemCompositions(
  deps: Deps,
  id: string,
  query: CompositionListQuery,
  page: Page,
): ListResult<CompositionDto> {
  return listCompositions(deps, query, page, requireSubsystem(deps, id).id);
}

/** The externalId of the composition's subsystem ("" once it is gone). */
export function ownerExternalId(deps: Deps, row: CompositionRow): string {
  return findSubsystem(deps, row.subsystemId)?.externalId ?? '';
}

/**
 * `composition.<event>` with the §0.4 data and, for a person's or token's write, its audit entry
 * (field names, never values). The platform's own changes (a template gone or back, media uploaded)
 * pass `null`: no one to audit.
 */
export function emitComposition(
  deps: Deps,
  principal: Principal | null,
  event: 'created' | 'updated' | 'deleted',
  row: CompositionRow,
  changed: readonly string[],
): void {
  const subsystemExternalId = ownerExternalId(deps, row);
  emit(deps, `composition.${event}`, {
    _id: row.id,
    ...(row.externalRef === null ? {} : { externalRef: row.externalRef }),
    subsystemExternalId,
    changed: [...changed],
    ...(event === 'deleted' ? {} : { status: row.status }),
  });
  if (!principal) return;
  const subject = {
    kind: 'composition',
    name: `composition ${row.id} (${row.displayName})`,
    subsystemId: row.subsystemId,
    subsystemExternalId,
  };
  audit(deps, principal, event, subject, event === 'updated' ? changed : []);
}

/** How often the schedule names a playable: scheduled items, playlists and blocks holding an entry of it. */
function scheduleUses(deps: Deps, playableId: number): { items: number; playlists: number; blocks: number } {
  const loaded = loadSchedule(deps);
  let items = 0;
  for (const item of loaded.items.values()) if (item.itemType === 'PLAYABLE' && item.itemId === playableId) items++;
  let playlists = 0;
  for (const p of loaded.playlists.values())
    if (p.entries.some((e) => e.itemType === 'PLAYABLE' && e.itemId === playableId)) playlists++;
  let blocks = 0;
  for (const b of loaded.blocks.values())
    if (b.items.some((e) => e.type === 'PLAYABLE' && e.typeId === playableId)) blocks++;
  return { items, playlists, blocks };
}

/**
 * `DELETE /compositions/{id}`: the composition and its playable (`playable.deleted`, then
 * `composition.deleted`). 409 while the schedule names the playable, unless `force`.
 */
export function deleteComposition(deps: Deps, principal: Principal, id: string, force: boolean): void {
  const row = requireComposition(deps, id);
  requireOwnWrite(principal, 'media:write', row.subsystemId);
  const playable = playableOf(deps, row);
  if (playable && !force) {
    const uses = scheduleUses(deps, playable.id);
    if (uses.items + uses.playlists + uses.blocks > 0) {
      throw conflict(
        `the playable ${playable.id} of composition ${row.id} is scheduled (${uses.items} scheduled item(s), ${uses.playlists} playlist(s), ${uses.blocks} block(s)); delete with force=true to remove it anyway`,
      );
    }
  }
  transact(deps, () => {
    deps.db.delete(compositions).where(eq(compositions.id, row.id)).run();
    if (playable) {
      deps.db.delete(playables).where(eq(playables.id, playable.id)).run();
      emitPlayable(deps, principal, 'deleted', playable, []);
    }
    emitComposition(deps, principal, 'deleted', row, []);
  });
}
