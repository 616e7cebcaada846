/**
 * Subsystems (§3): upsert keyed by `_id` or `externalId`, update and delete by `{id}`, list, read.
 * Reads show the health monitor's live status; heartbeats, actions and health checks have their own files.
 */
import { asc, count, eq } from 'drizzle-orm';
import { isoOrNull } from '../../clock';
import { changedFields } from '../../core/changes';
import { type AuditSubject, audit } from '../../core/platform-log';
import { type Principal, requireOwnWrite, systemPrincipal } from '../../core/principal';
import { getSettingGroup } from '../../core/settings';
import { forgetSubsystem, requireSubsystem, type SubsystemRow } from '../../core/subsystems';
import {
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
import { conflict, invalid, notFound } from '../../http/errors';
import { fuzzyMatch, type ListResult, metadataMatches, type Page, paginate } from '../../http/lists';
import { emit, transact } from '../../realtime/emit';
import { ensurePlatformVariables } from '../variables/platform';
import { configureHealth, forgetHealth, liveHealth } from './health';
import { toSubsystemDto } from './mapper';
import type { SubsystemDto, SubsystemListQuery, SubsystemWrite } from './model';
import { valuesOf, WRITABLE } from './rules';

/** The wire form of a row, with the monitor's live health. */
export function subsystemDto(deps: Deps, row: SubsystemRow): SubsystemDto {
  return toSubsystemDto(row, getSettingGroup(deps, 'health').defaultGracePeriodSeconds, liveHealth(deps, row));
}

function byExternalId(deps: Deps, externalId: string): SubsystemRow | undefined {
  return deps.db.select().from(subsystems).where(eq(subsystems.externalId, externalId)).get();
}

/** The row an upsert body names: by `_id` (404 when unknown), else by `externalId`, else none. */
function upsertTarget(deps: Deps, body: SubsystemWrite): SubsystemRow | undefined {
  if (body._id !== undefined) {
    const row = deps.db.select().from(subsystems).where(eq(subsystems.id, body._id)).get();
    if (!row) throw notFound('subsystem', body._id);
    return row;
  }
  return body.externalId === undefined ? undefined : byExternalId(deps, body.externalId);
}

function eventData(deps: Deps, row: SubsystemRow, changed: string[]): Record<string, unknown> {
  const live = liveHealth(deps, row);
  return {
    _id: row.id,
    externalId: row.externalId,
    status: live.status,
    lastContactedAt: isoOrNull(live.lastContactedAt),
    changed,
  };
}

function createSubsystem(deps: Deps, principal: Principal, body: SubsystemWrite): SubsystemRow {
  const { externalId } = body;
  if (externalId === undefined) throw invalid('/externalId', 'is required');
  const values = valuesOf(body, undefined);
  const now = deps.clock.now();
  return transact(deps, () => {
    const created = deps.db
      .insert(subsystems)
      .values({
        externalId,
        displayName: values.displayName ?? externalId,
        description: values.description ?? '',
        type: values.type ?? 'generic',
        healthEnabled: values.healthEnabled ?? true,
        status: values.healthEnabled === false ? 'disabled' : 'unknown',
        healthGracePeriod: values.healthGracePeriod ?? null,
        healthCheck: values.healthCheck ?? { mode: 'heartbeat' },
        directMediaPlayback: values.directMediaPlayback ?? false,
        metadata: values.metadata ?? {},
        createdAt: now,
        updatedAt: now,
      })
      .returning()
      .get();
    // Every subsystem owns its `is_alive` and `last_contacted_at` from the start (§3 rule 3).
    ensurePlatformVariables(deps, created.id);
    emit(deps, 'subsystem.created', eventData(deps, created, [...WRITABLE]));
    audit(deps, principal, 'created', subsystemSubject(created), WRITABLE);
    return created;
  });
}

function updateSubsystem(deps: Deps, principal: Principal, row: SubsystemRow, body: SubsystemWrite): SubsystemRow {
  const values = valuesOf(body, row);
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
  const changed = changedFields(row, values, WRITABLE);
  if (changed.length === 0) return row;
  try {
    return transact(deps, () => {
      const updated =
        deps.db
          .update(subsystems)
          .set({ ...values, updatedAt: deps.clock.now() })
          .where(eq(subsystems.id, row.id))
          .returning()
          .get() ?? row;
      forgetSubsystem(deps, row.id);
      configureHealth(deps, updated);
      emit(deps, 'subsystem.updated', eventData(deps, updated, changed));
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
 * Creates or updates the subsystem the body names by `_id` or `externalId` (C: Requests); the
 * platform's own calls (no principal) are not audited.
 */
export function upsertSubsystem(
  deps: Deps,
  body: SubsystemWrite,
  principal: Principal = systemPrincipal(),
): { entity: SubsystemDto; created: boolean } {
  const existing = upsertTarget(deps, body);
  if (existing) return { entity: subsystemDto(deps, updateSubsystem(deps, principal, existing, body)), created: false };
  return { entity: subsystemDto(deps, createSubsystem(deps, principal, body)), created: true };
}

/** How the `subsystem.<change>` audit entries name a subsystem. */
function subsystemSubject(row: SubsystemRow): AuditSubject {
  return {
    kind: 'subsystem',
    name: `subsystem ${row.id} (${row.externalId})`,
    subsystemId: row.id,
    subsystemExternalId: row.externalId,
  };
}

/** One subsystem by `_id` or `externalId`. */
export function getSubsystem(deps: Deps, id: string): SubsystemDto {
  return subsystemDto(deps, requireSubsystem(deps, id));
}

/**
 * Subsystems in `_id` order, filtered by exact `type`, live `status`, `externalId` and `metadata[key]`,
 * `fuzzy` (displayName, externalId, description) and `cms=true` (containers and direct-playback ones).
 */
export function listSubsystems(
  deps: Deps,
  query: SubsystemListQuery,
  metadataFilter: Record<string, string>,
  page: Page,
): ListResult<SubsystemDto> {
  const rows = deps.db
    .select()
    .from(subsystems)
    .orderBy(asc(subsystems.id))
    .all()
    .filter(
      (r) =>
        (query.type === undefined || r.type === query.type) &&
        (query.status === undefined || liveHealth(deps, r).status === query.status) &&
        (query.externalId === undefined || r.externalId === query.externalId) &&
        (query.cms !== 'true' || r.type.endsWith('Container') || r.directMediaPlayback) &&
        metadataMatches(r.metadata, metadataFilter) &&
        fuzzyMatch(query.fuzzy, r.displayName, r.externalId, r.description),
    );
  return paginate(
    rows.map((r) => subsystemDto(deps, r)),
    page,
  );
}

/**
 * PUT/PATCH `/subsystems/{id}`: the writable fields present change (same rules as the upsert);
 * `externalId` may change (rule 10). The 409 for a container with players turned into a non-container
 * comes with players (§13).
 */
export function updateSubsystemById(deps: Deps, principal: Principal, id: string, body: SubsystemWrite): SubsystemDto {
  const row = requireSubsystem(deps, id);
  requireOwnWrite(principal, 'subsystems:write', row.id);
  const { _id: _ignored, ...fields } = body;
  return subsystemDto(deps, updateSubsystem(deps, principal, row, fields));
}

/** Everything a subsystem owns, by the name its count carries in `subsystem.deleted` (rule 9). */
const OWNED = {
  variables,
  events,
  playables,
  parameters,
  presets,
  controlPanels,
  messages: subsystemMessages,
} as const;

export type DeletedCounts = Record<keyof typeof OWNED, number>;

/**
 * DELETE `/subsystems/{id}` (rule 9): the row goes, and with it, by the foreign keys' cascade, its
 * variables (and their history), events, playables, parameters, presets, registered panels (and their
 * available copies) and queued messages. Logs keep the subsystem's externalId as text. One
 * `subsystem.deleted` carries the counts.
 */
export function deleteSubsystem(deps: Deps, principal: Principal, id: string): DeletedCounts {
  const row = requireSubsystem(deps, id);
  requireOwnWrite(principal, 'subsystems:write', row.id);
  return transact(deps, () => {
    // Counted here rather than through each owner's service: the cascade deletes them in the same
    // statement, and these counts are only what the event reports.
    const counts = Object.fromEntries(
      Object.entries(OWNED).map(([name, table]) => [
        name,
        deps.db.select({ n: count() }).from(table).where(eq(table.subsystemId, row.id)).get()?.n ?? 0,
      ]),
    ) as DeletedCounts;
    deps.db.delete(subsystems).where(eq(subsystems.id, row.id)).run();
    forgetSubsystem(deps, row.id);
    // Forgotten live health is rebuilt from the row on its next read, so a rollback loses nothing stored.
    forgetHealth(deps, row.id);
    emit(deps, 'subsystem.deleted', { _id: row.id, externalId: row.externalId, changed: [], counts });
    audit(deps, principal, 'deleted', subsystemSubject(row), []);
    return counts;
  });
}
