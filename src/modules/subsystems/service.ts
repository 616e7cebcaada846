/**
 * Subsystems (§3), the create-and-read part: upsert keyed by `_id` or `externalId`, list, read.
 * Heartbeats, actions, health evaluation and deletion come with their own issue; the read-only
 * health fields are reported from the row as it stands.
 */
import { isIP } from 'node:net';
import { asc, eq } from 'drizzle-orm';
import { isoOrNull } from '../../clock';
import { type HealthCheck, subsystems } from '../../db/schema';
import type { Deps } from '../../deps';
import { conflict, invalid, notFound } from '../../http/errors';
import { metadataProblem } from '../../http/fields';
import { fuzzyMatch, type ListResult, type Page, paginate } from '../../http/lists';
import { emit } from '../../realtime/emit';
import { getSettingGroup } from '../settings/service';
import { requireSubsystem, type SubsystemRow } from './lookup';
import { toSubsystemDto } from './mapper';
import type { SubsystemDto, SubsystemListQuery, SubsystemWrite } from './model';

const MAX_GRACE_SECONDS = 86400;
const CHECK_DEFAULTS = { intervalSeconds: 30, timeoutSeconds: 5 };
const WRITABLE = [
  'externalId',
  'displayName',
  'description',
  'type',
  'healthEnabled',
  'healthGracePeriod',
  'healthCheck',
  'directMediaPlayback',
  'metadata',
] as const;

function dto(deps: Deps, row: SubsystemRow): SubsystemDto {
  return toSubsystemDto(row, getSettingGroup(deps, 'health').defaultGracePeriodSeconds, deps.clock.now());
}

/** `healthGracePeriod`: a positive integer of seconds (digits as text too), or null for the setting default. */
function gracePeriodOf(value: unknown): number | null {
  if (value === null) return null;
  const n = typeof value === 'string' && /^[0-9]{1,9}$/.test(value) ? Number(value) : value;
  if (typeof n !== 'number' || !Number.isInteger(n) || n <= 0) {
    throw invalid('/healthGracePeriod', 'must be greater than 0');
  }
  if (n > MAX_GRACE_SECONDS) throw invalid('/healthGracePeriod', `must be at most ${MAX_GRACE_SECONDS}`);
  return n;
}

function isHttpUrl(text: string): boolean {
  if (!URL.canParse(text)) return false;
  const { protocol } = new URL(text);
  return protocol === 'http:' || protocol === 'https:';
}

/** Keeps only the keys the mode uses, with the interval and timeout defaults filled in for polling modes. */
function healthCheckOf(check: HealthCheck): HealthCheck {
  if (check.mode === 'heartbeat') return { mode: 'heartbeat' };
  const timing = {
    intervalSeconds: check.intervalSeconds ?? CHECK_DEFAULTS.intervalSeconds,
    timeoutSeconds: check.timeoutSeconds ?? CHECK_DEFAULTS.timeoutSeconds,
  };
  if (check.mode === 'http') {
    if (check.url === undefined) throw invalid('/healthCheck/url', 'is required when mode is http');
    if (!isHttpUrl(check.url)) throw invalid('/healthCheck/url', 'must be an absolute http or https URL');
    return { mode: 'http', url: check.url, ...timing };
  }
  if (check.host === undefined) throw invalid('/healthCheck/host', 'is required when mode is tcp');
  if (check.port === undefined) throw invalid('/healthCheck/port', 'is required when mode is tcp');
  return { mode: 'tcp', host: check.host, port: check.port, ...timing };
}

function badKeyPath(value: unknown, path: string): string | null {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return null;
  for (const [key, inner] of Object.entries(value)) {
    if (key.length < 1 || key.length > 64) return path;
    const deeper = badKeyPath(inner, `${path}/${key}`);
    if (deeper) return deeper;
  }
  return null;
}

/** Merges a metadata patch key by key (null removes a key) and checks the §0.2 and §3 rules on the result. */
function mergeMetadata(current: Record<string, unknown>, patch: Record<string, unknown>): Record<string, unknown> {
  const badKey = badKeyPath(patch, '/metadata');
  if (badKey) throw invalid(badKey, 'has a key that is not 1 to 64 characters long');
  const merged: Record<string, unknown> = { ...current };
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete merged[key];
    else merged[key] = value;
  }
  const problem = metadataProblem(merged);
  if (problem) throw invalid('/metadata', problem);
  const ip = merged.ip_address;
  if (ip !== undefined && (typeof ip !== 'string' || (ip !== '' && isIP(ip) === 0))) {
    throw invalid('/metadata/ip_address', 'must be an IPv4 or IPv6 address');
  }
  return merged;
}

function cleanName(value: string): string {
  const trimmed = value.trim();
  if (trimmed === '') throw invalid('/displayName', 'must not be blank');
  return trimmed;
}

/** The row values a body sets, checked; absent fields are left out (they keep their value). */
function valuesOf(body: SubsystemWrite, current: SubsystemRow | undefined): Partial<SubsystemRow> {
  const values: Partial<SubsystemRow> = {};
  if (body.externalId !== undefined) values.externalId = body.externalId;
  if (body.displayName !== undefined) values.displayName = cleanName(body.displayName);
  if (body.description !== undefined) values.description = body.description;
  if (body.type !== undefined) values.type = body.type;
  if (body.healthEnabled !== undefined) values.healthEnabled = body.healthEnabled;
  if (body.healthGracePeriod !== undefined) values.healthGracePeriod = gracePeriodOf(body.healthGracePeriod);
  if (body.healthCheck !== undefined) values.healthCheck = healthCheckOf(body.healthCheck);
  if (body.directMediaPlayback !== undefined) values.directMediaPlayback = body.directMediaPlayback;
  if (body.metadata !== undefined) values.metadata = mergeMetadata(current?.metadata ?? {}, body.metadata);
  return values;
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

function eventData(row: SubsystemRow, changed: string[]): Record<string, unknown> {
  return {
    _id: row.id,
    externalId: row.externalId,
    status: row.status,
    lastContactedAt: isoOrNull(row.lastContactedAt),
    changed,
  };
}

function createSubsystem(deps: Deps, body: SubsystemWrite): SubsystemRow {
  if (body.externalId === undefined) throw invalid('/externalId', 'is required');
  const values = valuesOf(body, undefined);
  const now = deps.clock.now();
  const row = deps.db
    .insert(subsystems)
    .values({
      externalId: body.externalId,
      displayName: values.displayName ?? body.externalId,
      description: values.description ?? '',
      type: values.type ?? 'generic',
      healthEnabled: values.healthEnabled ?? true,
      healthGracePeriod: values.healthGracePeriod ?? null,
      healthCheck: values.healthCheck ?? { mode: 'heartbeat' },
      directMediaPlayback: values.directMediaPlayback ?? false,
      metadata: values.metadata ?? {},
      createdAt: now,
      updatedAt: now,
    })
    .returning()
    .get();
  emit(deps, 'subsystem.created', eventData(row, [...WRITABLE]));
  return row;
}

function updateSubsystem(deps: Deps, row: SubsystemRow, body: SubsystemWrite): SubsystemRow {
  const values = valuesOf(body, row);
  if (values.externalId !== undefined && values.externalId !== row.externalId) {
    const other = byExternalId(deps, values.externalId);
    if (other && other.id !== row.id) throw conflict('another subsystem already has this externalId');
  }
  const changed = WRITABLE.filter(
    (key) => values[key] !== undefined && JSON.stringify(values[key]) !== JSON.stringify(row[key]),
  );
  if (changed.length === 0) return row;
  const updated =
    deps.db
      .update(subsystems)
      .set({ ...values, updatedAt: deps.clock.now() })
      .where(eq(subsystems.id, row.id))
      .returning()
      .get() ?? row;
  emit(deps, 'subsystem.updated', eventData(updated, changed));
  return updated;
}

/** Creates or updates the subsystem the body names by `_id` or `externalId` (C: Requests). */
export function upsertSubsystem(deps: Deps, body: SubsystemWrite): { entity: SubsystemDto; created: boolean } {
  const existing = upsertTarget(deps, body);
  if (existing) return { entity: dto(deps, updateSubsystem(deps, existing, body)), created: false };
  return { entity: dto(deps, createSubsystem(deps, body)), created: true };
}

/** One subsystem by `_id` or `externalId`. */
export function getSubsystem(deps: Deps, id: string): SubsystemDto {
  return dto(deps, requireSubsystem(deps, id));
}

function metadataMatches(metadata: Record<string, unknown>, filter: Record<string, string>): boolean {
  return Object.entries(filter).every(([key, wanted]) => {
    const value = metadata[key];
    if (value === undefined) return false;
    return (typeof value === 'string' ? value : JSON.stringify(value)) === wanted;
  });
}

/**
 * Subsystems in `_id` order, filtered by exact `type`, `status`, `externalId` and `metadata[key]`,
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
        (query.status === undefined || r.status === query.status) &&
        (query.externalId === undefined || r.externalId === query.externalId) &&
        (query.cms !== 'true' || r.type.endsWith('Container') || r.directMediaPlayback) &&
        metadataMatches(r.metadata, metadataFilter) &&
        fuzzyMatch(query.fuzzy, r.displayName, r.externalId, r.description),
    );
  return paginate(
    rows.map((r) => dto(deps, r)),
    page,
  );
}
