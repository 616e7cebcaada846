/**
 * Playables (§14), the registration part: list, read, delete; creating and updating is in write.ts.
 * Instances, orphans, copying to players and instant play come with cms-media and the schedule.
 */
import { and, asc, eq, type SQL } from 'drizzle-orm';
import { audit } from '../../core/platform-log';
import { type Principal, requireOwnWrite } from '../../core/principal';
import { findSubsystem } from '../../core/subsystems';
import { playables, subsystems } from '../../db/schema';
import type { Deps } from '../../deps';
import { conflict, notFound } from '../../http/errors';
import { fuzzyMatch, type ListResult, type Page, paginate } from '../../http/lists';
import { emit, transact } from '../../realtime/emit';
import { upcomingPlayableIds } from '../schedule/snapshot/usage';
import { findPlayableByRef, type PlayableRow, playableDto, playableRowById } from './lookup';
import { toPlayableDto } from './mapper';
import type { PlayableDto, PlayableListQuery } from './model';

/** Second path segments that always mean a sub-resource, never an externalRef (§14). */
const RESERVED_REFS = new Set(['instances', 'copyToPlayerStatus']);

/**
 * `playable.<event>` with the §0.4 data (`_id`, `externalRef` when set, `subsystemExternalId`,
 * `changed`) and the audit entry of the write (rule 4: field names, never values).
 */
export function emitPlayable(
  deps: Deps,
  principal: Principal,
  event: 'created' | 'updated' | 'deleted',
  playable: PlayableDto,
  changed: readonly string[],
): void {
  emit(deps, `playable.${event}`, {
    _id: playable._id,
    ...(playable.externalRef === null ? {} : { externalRef: playable.externalRef }),
    subsystemExternalId: playable.subsystemExternalId,
    changed: [...changed],
  });
  const subject = {
    kind: 'playable',
    name: `playable ${playable._id}`,
    subsystemId: playable.subsystemId,
    subsystemExternalId: playable.subsystemExternalId,
  };
  audit(deps, principal, event, subject, event === 'updated' ? changed : []);
}

/** The playable an `{id}` (its `_id`) names, or 404. */
export function requirePlayableRow(deps: Deps, id: string | number): PlayableRow {
  const row = playableRowById(deps, id);
  if (!row) throw notFound('playable', id);
  return row;
}

/** `GET /playables/{id}`. */
export function getPlayable(deps: Deps, id: string): PlayableDto {
  return playableDto(deps, requirePlayableRow(deps, id));
}

/** `GET /playables/{subsystemId}/{externalRef}`; the reserved sub-resource names are not looked up as refs. */
export function getPlayableByRef(deps: Deps, subsystem: string, ref: string): PlayableDto {
  if (RESERVED_REFS.has(ref)) throw notFound(`${ref} of playable`, subsystem);
  const dto = findPlayableByRef(deps, subsystem, ref);
  if (!dto) throw notFound('playable', `${subsystem}/${ref}`);
  return dto;
}

function conditionsOf(deps: Deps, query: PlayableListQuery): SQL[] | null {
  const conditions: SQL[] = [];
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
 * and `fuzzy` (displayName, externalRef, description).
 */
export function listPlayables(deps: Deps, query: PlayableListQuery, page: Page): ListResult<PlayableDto> {
  const conditions = conditionsOf(deps, query);
  if (conditions === null) return { items: [], total: 0 };
  const rows = deps.db
    .select({ playable: playables, subsystemExternalId: subsystems.externalId })
    .from(playables)
    .innerJoin(subsystems, eq(subsystems.id, playables.subsystemId))
    .where(and(...conditions))
    .orderBy(asc(playables.id))
    .all()
    .filter(({ playable: p }) => fuzzyMatch(query.fuzzy, p.displayName, p.externalRef, p.description));
  const upcoming = upcomingPlayableIds(deps);
  return paginate(
    rows.map((r) => toPlayableDto(r.playable, r.subsystemExternalId, upcoming.has(r.playable.id))),
    page,
  );
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
  const gone = playableDto(deps, row);
  transact(deps, () => {
    deps.db.delete(playables).where(eq(playables.id, row.id)).run();
    emitPlayable(deps, principal, 'deleted', gone, []);
  });
}
