/**
 * Subsystems (§3): upsert keyed by `_id` or `externalId`, update and delete by `{id}`, list, read.
 * Reads show the health monitor's live status; heartbeats, actions and health checks have their own files.
 *
 * Players (§13) are rows of the same table (`kind` player). The row writes here serve both kinds:
 * events and audit entries are named after the row's kind (`player.created`, …), so the players
 * module (modules/players) reuses them with its own checks. Decisions where §3 and §13 are silent:
 * - `GET /subsystems/{id}` answers for a player too, in the subsystem form with `kind: "player"`
 *   (the list leaves players out unless `includePlayers=true`).
 * - Writes through `/subsystems` never touch a player: an upsert naming one (by `_id` or
 *   `externalId`), and PUT, PATCH or DELETE `/subsystems/{id}` of one, are 409 pointing at
 *   `/api/v1/players`, so its container and default state keep their rules.
 * - A container's type may not leave `…Container` while it has players (409, §3). Deleting a
 *   container emits `player.deleted` for each of its players (no audit entry of their own: the
 *   container's names the delete), then the foreign key's cascade removes them with everything they
 *   own; `subsystem.deleted` of a container counts them as `players`.
 * - Creating a subsystem is refused (409) when the installed licence allows no more (§19 rule 2,
 *   modules/license/limits.ts); with no licence installed there is no limit (rule 3).
 */
import { and, asc, count, eq } from 'drizzle-orm';
import { isoOrNull } from '../../clock';
import { changedFields } from '../../core/changes';
import { type AuditSubject, audit } from '../../core/platform-log';
import { type Principal, requireOwnWrite, systemPrincipal } from '../../core/principal';
import { getSettingGroup } from '../../core/settings';
import { findSubsystem, forgetSubsystem, requireSubsystem, type SubsystemRow } from '../../core/subsystems';
import {
  assets,
  compositions,
  controlPanels,
  events,
  parameters,
  playables,
  presets,
  subsystemMessages,
  subsystems,
  variables,
} from '../../db/schema';
import type { Deps } from '../../deps';
import { conflict, invalid } from '../../http/errors';
import {
  fieldFilterValues,
  fieldsMatch,
  fuzzyMatch,
  type ListResult,
  metadataMatches,
  type Page,
  paginate,
} from '../../http/lists';
import { upsertTarget } from '../../http/upsert';
import { emit, transact } from '../../realtime/emit';
import { requireLicenseRoom } from '../license/limits';
import { ensurePlatformVariables } from '../variables/platform';
import { configureHealth, forgetHealth, liveHealth } from './health';
import { toSubsystemDto } from './mapper';
import { SUBSYSTEM_FIELD_FILTERS, type SubsystemDto, type SubsystemListQuery, type SubsystemWrite } from './model';
import { valuesOf, WRITABLE } from './rules';

/** The wire form of a row, with the monitor's live health. */
export function subsystemDto(deps: Deps, row: SubsystemRow): SubsystemDto {
  return toSubsystemDto(row, getSettingGroup(deps, 'health').defaultGracePeriodSeconds, liveHealth(deps, row));
}

export type SubsystemKind = SubsystemRow['kind'];

/** Whether a `type` makes a subsystem a container of players (§3). */
export function isContainerType(type: string): boolean {
  return type.endsWith('Container');
}

/** A subsystem (never a player) whose type makes it a container of players (§3 `type`, §13). */
export function isContainer(row: { kind: string; type: string } | undefined): boolean {
  return row?.kind === 'subsystem' && isContainerType(row.type);
}

/** The players of a container, in `_id` order. */
export function playerRowsOf(deps: Deps, containerId: number): SubsystemRow[] {
  return deps.db
    .select()
    .from(subsystems)
    .where(and(eq(subsystems.kind, 'player'), eq(subsystems.containerId, containerId)))
    .orderBy(asc(subsystems.id))
    .all();
}

/** 409 for a write through `/subsystems` that names a player (decision above). */
function refusePlayer(row: SubsystemRow): void {
  if (row.kind === 'player') {
    throw conflict(`${row.externalId} is a player: change it through /api/v1/players/${row.id}`);
  }
}

export function byExternalId(deps: Deps, externalId: string): SubsystemRow | undefined {
  return deps.db.select().from(subsystems).where(eq(subsystems.externalId, externalId)).get();
}

/** The row an upsert body names (`upsertTarget`): by `_id` when it exists, else by `externalId`, else none. */
function namedSubsystem(deps: Deps, body: SubsystemWrite): SubsystemRow | undefined {
  const { externalId } = body;
  return upsertTarget(
    body._id,
    (id) => deps.db.select().from(subsystems).where(eq(subsystems.id, id)).get(),
    () => (externalId === undefined ? undefined : byExternalId(deps, externalId)),
  );
}

/**
 * The data of a `<kind>.<change>` event: a player's also names its container
 * (`container`, `subsystemExternalId`: the subsystem that owns it, §0.4 rule 2).
 */
export function eventData(deps: Deps, row: SubsystemRow, changed: string[]): Record<string, unknown> {
  const live = liveHealth(deps, row);
  const owner = row.containerId === null ? undefined : findSubsystem(deps, row.containerId);
  return {
    _id: row.id,
    externalId: row.externalId,
    ...(row.kind === 'player' ? { container: row.containerId, subsystemExternalId: owner?.externalId ?? null } : {}),
    status: live.status,
    lastContactedAt: isoOrNull(live.lastContactedAt),
    changed,
  };
}

/** Player columns and the wire field each stands for in `changed` (the players module writes them). */
const PLAYER_FIELDS: Partial<Record<keyof SubsystemRow, string>> = {
  containerId: 'container',
  defaultMediaType: 'defaultState',
  defaultMediaId: 'defaultState',
};

/** The wire names of the player columns `extra` changes against `row` (all set ones on create). */
function extraChanged(row: SubsystemRow | undefined, extra: Partial<SubsystemRow>): string[] {
  const names = changedFields(row, extra, Object.keys(PLAYER_FIELDS) as Array<keyof SubsystemRow>).map(
    (key) => PLAYER_FIELDS[key] ?? key,
  );
  return [...new Set(names)];
}

/**
 * Inserts a subsystem, or a player when `extra.kind` says so, from checked body values: its platform
 * variables, `<kind>.created` and the audit entry in one unit. A player's type defaults to `player`
 * and its `directMediaPlayback` to true (§13).
 */
export function createSubsystemRow(
  deps: Deps,
  principal: Principal,
  externalId: string,
  values: Partial<SubsystemRow>,
  extra: Partial<SubsystemRow> = {},
): SubsystemRow {
  const kind = extra.kind ?? 'subsystem';
  const player = kind === 'player';
  const now = deps.clock.now();
  return transact(deps, () => {
    const created = deps.db
      .insert(subsystems)
      .values({
        externalId,
        displayName: values.displayName ?? externalId,
        description: values.description ?? '',
        type: values.type ?? (player ? 'player' : 'generic'),
        healthEnabled: values.healthEnabled ?? true,
        status: values.healthEnabled === false ? 'disabled' : 'unknown',
        healthGracePeriod: values.healthGracePeriod ?? null,
        healthCheck: values.healthCheck ?? { mode: 'heartbeat' },
        directMediaPlayback: values.directMediaPlayback ?? player,
        metadata: values.metadata ?? {},
        ...extra,
        kind,
        createdAt: now,
        updatedAt: now,
      })
      .returning()
      .get();
    // Every subsystem and player owns its `is_alive` and `last_contacted_at` from the start (§3 rule 3).
    ensurePlatformVariables(deps, created.id);
    const changed = [...WRITABLE, ...extraChanged(undefined, extra)];
    emit(deps, `${kind}.created`, eventData(deps, created, changed));
    audit(deps, principal, 'created', subsystemSubject(created), changed);
    return created;
  });
}

function createSubsystem(deps: Deps, principal: Principal, body: SubsystemWrite): SubsystemRow {
  const { externalId } = body;
  if (externalId === undefined) throw invalid('/externalId', 'is required');
  requireLicenseRoom(deps, 'subsystems');
  return createSubsystemRow(deps, principal, externalId, valuesOf(body, undefined));
}

/**
 * Updates a subsystem or player row from checked body values (and, for players, `extra` columns):
 * `<kind>.updated` and the audit entry name the changed fields; nothing is written when none changed.
 */
export function updateSubsystemRow(
  deps: Deps,
  principal: Principal,
  row: SubsystemRow,
  values: Partial<SubsystemRow>,
  extra: Partial<SubsystemRow> = {},
): SubsystemRow {
  // A read sends the effective grace period; sending it back unchanged must not pin the setting default.
  if (
    row.healthGracePeriod === null &&
    values.healthGracePeriod === getSettingGroup(deps, 'health').defaultGracePeriodSeconds
  ) {
    delete values.healthGracePeriod;
  }
  if (values.externalId !== undefined && values.externalId !== row.externalId) {
    const other = byExternalId(deps, values.externalId);
    if (other && other.id !== row.id) throw conflict('another subsystem already has this externalId');
  }
  if (
    values.type !== undefined &&
    isContainerType(row.type) &&
    !isContainerType(values.type) &&
    playerRowsOf(deps, row.id).length > 0
  ) {
    throw conflict(`subsystem ${row.externalId} is a container with players; its type must keep ending in Container`);
  }
  const changed = [...changedFields(row, values, WRITABLE), ...extraChanged(row, extra)];
  if (changed.length === 0) return row;
  try {
    return transact(deps, () => {
      const updated =
        deps.db
          .update(subsystems)
          .set({ ...values, ...extra, updatedAt: deps.clock.now() })
          .where(eq(subsystems.id, row.id))
          .returning()
          .get() ?? row;
      forgetSubsystem(deps, row.id);
      configureHealth(deps, updated);
      emit(deps, `${row.kind}.updated`, eventData(deps, updated, changed));
      audit(deps, principal, 'updated', subsystemSubject(updated), changed);
      return updated;
    });
  } catch (err) {
    // The live health may have taken the rolled-back settings: rebuild it from the stored row.
    forgetHealth(deps, row.id);
    throw err;
  }
}

/**
 * Creates or updates the subsystem the body names by `_id` (an unknown one is ignored) or
 * `externalId` (C: Requests), else creates one; the platform's own calls (no principal) are not
 * audited.
 */
export function upsertSubsystem(
  deps: Deps,
  body: SubsystemWrite,
  principal: Principal = systemPrincipal(),
): { entity: SubsystemDto; created: boolean } {
  const existing = namedSubsystem(deps, body);
  if (existing) {
    // As `PUT /subsystems/{id}`: a credential limited to some subsystems updates only those.
    requireOwnWrite(principal, 'subsystems:write', existing.id);
    refusePlayer(existing);
    const entity = subsystemDto(deps, updateSubsystemRow(deps, principal, existing, valuesOf(body, existing)));
    return { entity, created: false };
  }
  return { entity: subsystemDto(deps, createSubsystem(deps, principal, body)), created: true };
}

/** How the `subsystem.<change>` (or `player.<change>`) audit entries name a subsystem or player. */
function subsystemSubject(row: SubsystemRow): AuditSubject {
  return {
    kind: row.kind,
    name: `${row.kind} ${row.id} (${row.externalId})`,
    subsystemId: row.id,
    subsystemExternalId: row.externalId,
  };
}

/** One subsystem by `_id` or `externalId`. */
export function getSubsystem(deps: Deps, id: string): SubsystemDto {
  return subsystemDto(deps, requireSubsystem(deps, id));
}

/**
 * Subsystems in `_id` order, filtered by exact `type`, live `status`, `externalId`, `metadata[key]`
 * and the scalar fields of the wire form (`SUBSYSTEM_FIELD_FILTERS`), `fuzzy` (displayName,
 * externalId, description) and `cms=true` (containers and direct-playback ones); players only with
 * `includePlayers=true`. In memory: every row is built into wire form anyway, then paged.
 */
export function listSubsystems(
  deps: Deps,
  query: SubsystemListQuery,
  metadataFilter: Record<string, string>,
  page: Page,
): ListResult<SubsystemDto> {
  const fields = fieldFilterValues(query, SUBSYSTEM_FIELD_FILTERS);
  const dtos = deps.db
    .select()
    .from(subsystems)
    .orderBy(asc(subsystems.id))
    .all()
    .filter(
      (r) =>
        (query.type === undefined || r.type === query.type) &&
        (query.externalId === undefined || r.externalId === query.externalId) &&
        (r.kind === 'subsystem' || query.includePlayers === 'true') &&
        (query.cms !== 'true' || isContainerType(r.type) || r.directMediaPlayback) &&
        metadataMatches(r.metadata, metadataFilter) &&
        fuzzyMatch(query.fuzzy, r.displayName, r.externalId, r.description),
    )
    .map((r) => subsystemDto(deps, r))
    .filter((dto) => (query.status === undefined || dto.status === query.status) && fieldsMatch(dto, fields));
  return paginate(dtos, page);
}

/**
 * PUT/PATCH `/subsystems/{id}`: the writable fields present change (same rules as the upsert);
 * `externalId` may change (rule 10); 409 for a container with players turned into a non-container.
 */
export function updateSubsystemById(deps: Deps, principal: Principal, id: string, body: SubsystemWrite): SubsystemDto {
  const row = requireSubsystem(deps, id);
  requireOwnWrite(principal, 'subsystems:write', row.id);
  refusePlayer(row);
  const { _id: _ignored, ...fields } = body;
  return subsystemDto(deps, updateSubsystemRow(deps, principal, row, valuesOf(fields, row)));
}

/**
 * Everything a subsystem owns, by the name its count carries in `subsystem.deleted` (rule 9). Its
 * assets are counted but not deleted: the foreign key unlinks them.
 */
const OWNED = {
  variables,
  events,
  playables,
  compositions,
  parameters,
  presets,
  controlPanels,
  messages: subsystemMessages,
  assets,
} as const;

/** `players` only for a container. */
export type DeletedCounts = Record<keyof typeof OWNED, number> & { players?: number };

/**
 * DELETE `/subsystems/{id}` (rule 9): the row goes, and with it, by the foreign keys' cascade, its
 * variables (and their settled history; recent points go at the next history settle), events,
 * playables, compositions, parameters, presets, registered panels (and their available copies) and
 * queued messages; its assets are unlinked (`subsystemId` null). Logs keep the subsystem's externalId
 * as text. One `subsystem.deleted` carries the counts.
 */
export function deleteSubsystem(deps: Deps, principal: Principal, id: string): DeletedCounts {
  const row = requireSubsystem(deps, id);
  requireOwnWrite(principal, 'subsystems:write', row.id);
  refusePlayer(row);
  return deleteSubsystemRow(deps, principal, row);
}

/**
 * Deletes a subsystem or player row and what it owns (rule 9, §13 rule 2): a container's players go
 * with it, each announced by `player.deleted`; zones drop the deleted members when they hear the
 * events (schedule listeners), their queued messages go by the cascade.
 */
export function deleteSubsystemRow(deps: Deps, principal: Principal, row: SubsystemRow): DeletedCounts {
  const players = playerRowsOf(deps, row.id);
  return transact(deps, () => {
    // Counted here rather than through each owner's service: the cascade deletes them in the same
    // statement, and these counts are only what the event reports.
    const counts = Object.fromEntries(
      Object.entries(OWNED).map(([name, table]) => [
        name,
        deps.db.select({ n: count() }).from(table).where(eq(table.subsystemId, row.id)).get()?.n ?? 0,
      ]),
    ) as DeletedCounts;
    if (isContainerType(row.type) || players.length > 0) counts.players = players.length;
    for (const player of players) {
      emit(deps, 'player.deleted', {
        _id: player.id,
        externalId: player.externalId,
        container: row.id,
        subsystemExternalId: row.externalId,
        changed: [],
      });
    }
    // The players go by the foreign key's cascade, with everything they own.
    deps.db.delete(subsystems).where(eq(subsystems.id, row.id)).run();
    for (const gone of [row, ...players]) {
      forgetSubsystem(deps, gone.id);
      // Forgotten live health is rebuilt from the row on its next read, so a rollback loses nothing stored.
      forgetHealth(deps, gone.id);
    }
    const owner = row.containerId === null ? undefined : findSubsystem(deps, row.containerId);
    emit(deps, `${row.kind}.deleted`, {
      _id: row.id,
      externalId: row.externalId,
      ...(row.kind === 'player' ? { container: row.containerId, subsystemExternalId: owner?.externalId ?? null } : {}),
      changed: [],
      counts,
    });
    audit(deps, principal, 'deleted', subsystemSubject(row), []);
    return counts;
  });
}
