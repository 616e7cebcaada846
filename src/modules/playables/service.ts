/**
 * Playables (§14), the registration part: list, read, delete; creating and updating is in write.ts.
 * Every read answers with `objectsDetails` whose download links are built for the origin of the
 * request that reads (routes.ts passes it); a list page reads the objects of all its playables at
 * once. Play and stop are in play.ts, instances in instances.ts, orphans in orphans.ts, copying to
 * players in copy*.ts.
 */
import { and, asc, eq, type SQL } from 'drizzle-orm';
import { audit } from '../../core/platform-log';
import { type Principal, requireOwnWrite } from '../../core/principal';
import { findSubsystem } from '../../core/subsystems';
import { playables, subsystems } from '../../db/schema';
import type { Deps } from '../../deps';
import { conflict, notFound } from '../../http/errors';
import {
  fieldConditions,
  fuzzyMatch,
  type ListResult,
  metadataConditions,
  type Page,
  paginate,
} from '../../http/lists';
import { emit, transact } from '../../realtime/emit';
import {
  findPlayableByRef,
  ownerExternalId,
  type PlayableRow,
  playableDto,
  playableDtos,
  playableRowById,
} from './lookup';
import { PLAYABLE_FIELD_FILTERS, type PlayableDto, type PlayableListQuery } from './model';

/** Second path segments that always mean a sub-resource, never an externalRef (§14). */
const RESERVED_REFS = new Set(['instances', 'copyToPlayerStatus']);

/**
 * `playable.<event>` with the §0.4 data (`_id`, `externalRef` when set, `subsystemExternalId`,
 * `changed`) and the audit entry of the write (rule 4: field names, never values). Built from the
 * row, inside the write's transaction: the event carries no wire form, so no objects and no schedule
 * are read for it (the schedule's snapshot must never be built from rows that may still roll back).
 */
export function emitPlayable(
  deps: Deps,
  principal: Principal,
  event: 'created' | 'updated' | 'deleted',
  row: PlayableRow,
  changed: readonly string[],
): void {
  const subsystemExternalId = ownerExternalId(deps, row);
  emit(deps, `playable.${event}`, {
    _id: row.id,
    ...(row.externalRef === null ? {} : { externalRef: row.externalRef }),
    subsystemExternalId,
    changed: [...changed],
  });
  const subject = {
    kind: 'playable',
    name: `playable ${row.id}`,
    subsystemId: row.subsystemId,
    subsystemExternalId,
  };
  audit(deps, principal, event, subject, event === 'updated' ? changed : []);
}

/** The playable an `{id}` (its `_id`) names, or 404. */
export function requirePlayableRow(deps: Deps, id: string | number): PlayableRow {
  const row = playableRowById(deps, id);
  if (!row) throw notFound('playable', id);
  return row;
}

/** `GET /playables/{id}`; `origin` is the reading request's. */
export function getPlayable(deps: Deps, id: string, origin: string): PlayableDto {
  return playableDto(deps, requirePlayableRow(deps, id), origin);
}

/** `GET /playables/{subsystemId}/{externalRef}`; the reserved sub-resource names are not looked up as refs. */
export function getPlayableByRef(deps: Deps, subsystem: string, ref: string, origin: string): PlayableDto {
  if (RESERVED_REFS.has(ref)) throw notFound(`${ref} of playable`, subsystem);
  const dto = findPlayableByRef(deps, subsystem, ref, origin);
  if (!dto) throw notFound('playable', `${subsystem}/${ref}`);
  return dto;
}

function conditionsOf(deps: Deps, query: PlayableListQuery, metadata: Record<string, string>): SQL[] | null {
  const conditions: SQL[] = [
    ...fieldConditions(query, PLAYABLE_FIELD_FILTERS, {
      displayName: playables.displayName,
      description: playables.description,
      command: playables.command,
      duration: playables.duration,
      durationType: playables.durationType,
      thumbId: playables.thumbId,
      availableInSubsystem: playables.availableInSubsystem,
      isCached: playables.isCached,
      copyToPlayer: playables.copyToPlayer,
      autoSync: playables.autoSync,
    }),
    ...metadataConditions(playables.metadata, metadata),
  ];
  if (query.subsystemId !== undefined) {
    const owner = findSubsystem(deps, query.subsystemId);
    if (!owner) return null;
    conditions.push(eq(playables.subsystemId, owner.id));
  }
  if (query.subsystemExternalId !== undefined) conditions.push(eq(subsystems.externalId, query.subsystemExternalId));
  if (query.externalRef !== undefined) conditions.push(eq(playables.externalRef, query.externalRef));
  if (query.type !== undefined) conditions.push(eq(playables.type, query.type));
  if (query.group !== undefined) conditions.push(eq(playables.groupName, query.group));
  if (query.forceCached !== undefined) conditions.push(eq(playables.forceCached, query.forceCached === 'true'));
  if (query.active !== undefined) conditions.push(eq(playables.active, query.active === 'true'));
  if (query.compositionId !== undefined) conditions.push(eq(playables.compositionId, Number(query.compositionId)));
  return conditions;
}

/**
 * Playables in `_id` order filtered by exact `subsystemId` (`_id` or externalId),
 * `subsystemExternalId`, `externalRef`, `type`, `group`, `forceCached`, `compositionId`, `active`,
 * the other scalar fields (`PLAYABLE_FIELD_FILTERS`), `metadata[key]` and `fuzzy` (displayName, externalRef, description). Only the page is mapped, so only its
 * playables' objects are read (once for the page).
 */
export function listPlayables(
  deps: Deps,
  query: PlayableListQuery,
  metadata: Record<string, string>,
  page: Page,
  origin: string,
): ListResult<PlayableDto> {
  const conditions = conditionsOf(deps, query, metadata);
  if (conditions === null) return { items: [], total: 0 };
  const rows = deps.db
    .select({ playable: playables, subsystemExternalId: subsystems.externalId })
    .from(playables)
    .innerJoin(subsystems, eq(subsystems.id, playables.subsystemId))
    .where(and(...conditions))
    .orderBy(asc(playables.id))
    .all()
    .filter(({ playable: p }) => fuzzyMatch(query.fuzzy, p.displayName, p.externalRef, p.description));
  const { items, total } = paginate(rows, page);
  return { items: playableDtos(deps, items, origin), total };
}

/**
 * Deletes a playable (rule 2: scheduled items and playlist entries referring to it stay, marked
 * missing, once those exist). A composition's playable goes only with its composition (409).
 */
export function deletePlayable(deps: Deps, principal: Principal, id: string): void {
  const row = requirePlayableRow(deps, id);
  requireOwnWrite(principal, 'media:write', row.subsystemId);
  if (row.compositionId !== null) {
    throw conflict(`this playable belongs to composition ${row.compositionId}; delete the composition instead`);
  }
  transact(deps, () => {
    deps.db.delete(playables).where(eq(playables.id, row.id)).run();
    emitPlayable(deps, principal, 'deleted', row, []);
  });
}
