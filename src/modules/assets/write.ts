/**
 * Creating, updating and deleting assets (§16): the upsert keyed by `_id` or (subsystem,
 * externalRef), updates by `{id}`, single and bulk deletes. An asset of a subsystem is written with
 * `assets:write` or by the integration role acting for that subsystem (§0.3); an asset of none needs
 * `assets:write` on a credential not limited to some subsystems.
 *
 * Decision where §0.3 is silent: a credential limited to some subsystems names as a new `parentId`
 * (and as a variable's `assetId`, variables/fields.ts) only an asset of its subsystems or of none
 * (`requireMayName`, 403); a link already stored, sent back unchanged, is kept. People and unlimited
 * credentials link across subsystems as before.
 */
import { eq, inArray, sql } from 'drizzle-orm';
import { changedFields } from '../../core/changes';
import { can, type Principal, requireMayName, requireOwnWrite } from '../../core/principal';
import { findSubsystem, type SubsystemRow, subsystemNamedBy } from '../../core/subsystems';
import { prepared } from '../../db/prepared';
import { assets } from '../../db/schema';
import type { Deps } from '../../deps';
import { badRequest, conflict, forbidden, invalid } from '../../http/errors';
import { checkIpAddress, cleanName, mergeMetadata, tagsOf } from '../../http/fields';
import { upsertTarget } from '../../http/upsert';
import { emit, transact } from '../../realtime/emit';
import { detachAssetMetrics, forgetAssetMetrics } from '../variables/service';
import { recordStatusChange } from './history';
import type { AssetRow } from './mapper';
import type { AssetDto, AssetFilters, AssetWrite } from './model';
import { announce, assetDto, assetRow, findAsset, findAssetByRef, type Scope, selectedIds } from './service';

/** At most this many levels from a root (level 1) down to the deepest descendant (§16 `parentId`). */
export const MAX_LEVELS = 10;
/** The metadata keys the server keeps in step with the subsystem fields (§16 `metadata`). */
const SERVER_KEYS = ['subsystemId', 'subsystemName'] as const;

const WRITABLE = [
  'displayName',
  'description',
  'tags',
  'type',
  'profileType',
  'parentId',
  'manufacturer',
  'model',
  'serialNumber',
  'firmwareVersion',
  'status',
  'metadata',
] as const;
const CREATED = ['externalRef', 'subsystemId', ...WRITABLE];

type Upserted = { entity: AssetDto; created: boolean };
type Values = Partial<Pick<AssetRow, (typeof WRITABLE)[number]>>;

/** §0.3: the asset's subsystem decides who may write it. */
function requireAssetWrite(principal: Principal, subsystemId: number | null): void {
  if (subsystemId !== null) {
    requireOwnWrite(principal, 'assets:write', subsystemId);
    return;
  }
  if (!can(principal, 'assets:write')) throw forbidden('this needs the assets:write permission');
  if (principal.subsystemIds.length > 0)
    throw forbidden('this credential acts only for its subsystems: name one of them as the subsystem');
}

/** The level of an asset whose parent is `parentId` (a root is level 1); 400 on an unknown parent or a cycle. */
function levelUnder(deps: Deps, parentId: number, self: number | null): number {
  let level = 1;
  let current: number | null = parentId;
  while (current !== null) {
    if (current === self) throw invalid('/parentId', 'would make the asset its own ancestor');
    const row = findAsset(deps, current);
    if (!row) throw invalid('/parentId', level === 1 ? 'names no asset' : 'leads to a missing asset');
    level += 1;
    if (level > MAX_LEVELS) throw invalid('/parentId', `would nest assets more than ${MAX_LEVELS} levels deep`);
    current = row.parentId;
  }
  return level;
}

/** How many levels below an asset its deepest descendant is (0 for a leaf). */
function heightBelow(deps: Deps, id: number): number {
  const query = prepared(deps, 'assets.heightBelow', () =>
    deps.sqlite.query<{ h: number | null }, [number, number]>(`
      with recursive below(id, depth) as (
        select id, 1 from assets where parent_id = ?1
        union all
        select a.id, below.depth + 1 from assets a join below on a.parent_id = below.id where below.depth < ?2
      )
      select max(depth) as h from below`),
  );
  return query.get(id, MAX_LEVELS + 1)?.h ?? 0;
}

/**
 * `parentId`: an existing asset, no cycle, the whole subtree within MAX_LEVELS; a new parent one the
 * credential may name (requireMayName: a limited token hung its assets under another subsystem's).
 */
function checkParent(deps: Deps, principal: Principal, parentId: number | null, self: AssetRow | undefined): void {
  if (parentId === null) return;
  const level = levelUnder(deps, parentId, self?.id ?? null);
  const height = self ? heightBelow(deps, self.id) : 0;
  if (level + height > MAX_LEVELS) throw invalid('/parentId', `would nest assets more than ${MAX_LEVELS} levels deep`);
  if (parentId !== self?.parentId)
    requireMayName(principal, findAsset(deps, parentId)?.subsystemId ?? null, 'parentId');
}

/** The metadata with the server's subsystem keys in step with the subsystem (§16). */
export function withSubsystemKeys(
  metadata: Record<string, unknown>,
  subsystem: Pick<SubsystemRow, 'id' | 'displayName'> | undefined,
): Record<string, unknown> {
  const { subsystemId: _id, subsystemName: _name, ...rest } = metadata;
  return subsystem ? { ...rest, subsystemId: String(subsystem.id), subsystemName: subsystem.displayName } : rest;
}

/** The writable values a body sets, checked; absent fields keep their value. */
function valuesOf(deps: Deps, principal: Principal, body: AssetWrite, current: AssetRow | undefined): Values {
  const v: Values = {};
  if (body.displayName !== undefined) v.displayName = cleanName(body.displayName);
  if (body.description !== undefined) v.description = body.description;
  if (body.tags !== undefined) v.tags = tagsOf(body.tags, '/tags');
  if (body.type !== undefined) v.type = body.type;
  if (body.profileType !== undefined) v.profileType = body.profileType;
  if (body.parentId !== undefined) {
    checkParent(deps, principal, body.parentId, current);
    v.parentId = body.parentId;
  }
  if (body.manufacturer !== undefined) v.manufacturer = body.manufacturer;
  if (body.model !== undefined) v.model = body.model;
  if (body.serialNumber !== undefined) v.serialNumber = body.serialNumber;
  if (body.firmwareVersion !== undefined) v.firmwareVersion = body.firmwareVersion;
  if (body.status !== undefined) v.status = body.status;
  if (body.metadata !== undefined) {
    const patch = { ...body.metadata };
    for (const key of SERVER_KEYS) delete patch[key];
    const merged = mergeMetadata(current?.metadata ?? {}, patch);
    checkIpAddress(merged);
    v.metadata = merged;
  }
  return v;
}

/** An infra route's write must leave the asset with a `profileType` (§16: 400 without). */
function requireInfra(scope: Scope, values: Values, current: AssetRow | undefined): void {
  if (scope !== 'infra') return;
  const profileType = values.profileType !== undefined ? values.profileType : (current?.profileType ?? null);
  if (profileType === null) throw invalid('/profileType', 'is required for an infra asset');
}

function update(deps: Deps, principal: Principal, row: AssetRow, body: AssetWrite, scope: Scope): AssetDto {
  requireAssetWrite(principal, row.subsystemId);
  const values = valuesOf(deps, principal, body, row);
  requireInfra(scope, values, row);
  if (values.metadata !== undefined)
    values.metadata = withSubsystemKeys(values.metadata, subsystemOfRow(deps, row.subsystemId));
  const changed = changedFields(row, values);
  if (changed.length === 0) return assetDto(deps, row.id);
  return transact(deps, () => {
    deps.db
      .update(assets)
      .set({ ...values, updatedAt: deps.clock.now() })
      .where(eq(assets.id, row.id))
      .run();
    // Its metrics show its displayName and type (§4 `assetDisplayName`, `assetType`).
    if (changed.includes('displayName') || changed.includes('type')) forgetAssetMetrics(deps, row.id);
    if (values.status !== undefined) recordStatusChange(deps, row.id, row.status, values.status);
    const asset = assetDto(deps, row.id);
    announce(deps, principal, 'updated', asset, changed);
    return asset;
  });
}

function subsystemOfRow(deps: Deps, id: number | null): SubsystemRow | undefined {
  return id === null ? undefined : findSubsystem(deps, id);
}

function create(
  deps: Deps,
  principal: Principal,
  subsystem: SubsystemRow | undefined,
  ref: string | null,
  body: AssetWrite,
  scope: Scope,
): AssetDto {
  requireAssetWrite(principal, subsystem?.id ?? null);
  if (body.displayName === undefined) throw invalid('/displayName', 'is required');
  const values = valuesOf(deps, principal, body, undefined);
  requireInfra(scope, values, undefined);
  const now = deps.clock.now();
  return transact(deps, () => {
    const row = deps.db
      .insert(assets)
      .values({
        displayName: values.displayName ?? '',
        description: values.description ?? '',
        tags: values.tags ?? [],
        externalRef: ref,
        subsystemId: subsystem?.id ?? null,
        type: values.type ?? 'device',
        profileType: values.profileType ?? null,
        parentId: values.parentId ?? null,
        manufacturer: values.manufacturer ?? null,
        model: values.model ?? null,
        serialNumber: values.serialNumber ?? null,
        firmwareVersion: values.firmwareVersion ?? null,
        status: values.status ?? 'active',
        metadata: withSubsystemKeys(values.metadata ?? {}, subsystem),
        createdAt: now,
        updatedAt: now,
      })
      .returning({ id: assets.id })
      .get();
    const asset = assetDto(deps, row.id);
    announce(deps, principal, 'created', asset, CREATED);
    return asset;
  });
}

/**
 * `POST`/`PUT /assets`, `PUT /asset`, `POST /infra/assets` (C: Requests): by `_id` when it exists
 * (an unknown `_id` is ignored), else by subsystem + externalRef, else a new asset.
 */
export function upsertAsset(deps: Deps, principal: Principal, body: AssetWrite, scope: Scope): Upserted {
  // Read only once `_id` named nothing: a body naming its asset by `_id` needs no known subsystem.
  const subsystem = () =>
    subsystemNamedBy(deps, {
      subsystemId: body.subsystemId ?? undefined,
      subsystemExternalId: body.subsystemExternalId ?? undefined,
    });
  const ref = body.externalRef ?? null;
  const existing = upsertTarget(
    body._id,
    (id) => findAsset(deps, id),
    () => (ref === null ? undefined : findAssetByRef(deps, subsystem()?.id ?? null, ref)),
  );
  if (existing) return { entity: update(deps, principal, existing, body, scope), created: false };
  return { entity: create(deps, principal, subsystem(), ref, body, scope), created: true };
}

/** `PUT`/`PATCH /assets/{id}` and `/infra/assets/{id}`. */
export function updateAsset(deps: Deps, principal: Principal, id: string, body: AssetWrite, scope: Scope): AssetDto {
  return update(deps, principal, assetRow(deps, id, scope), body, scope);
}

/** Deletes rows whose children are all among them (409 otherwise), detaching their metrics. */
function removeRows(deps: Deps, principal: Principal, rows: readonly AssetRow[]): number {
  for (const row of rows) requireAssetWrite(principal, row.subsystemId);
  const ids = new Set(rows.map((r) => r.id));
  if (ids.size === 0) return 0;
  const children = deps.db
    .select({ id: assets.id, parentId: assets.parentId })
    .from(assets)
    .where(inArray(assets.parentId, [...ids]))
    .all();
  const outside = children.find((c) => !ids.has(c.id));
  if (outside) throw conflict(`asset ${outside.parentId} has child assets (${outside.id}); delete or move them first`);
  const gone = rows.map((r) => assetDto(deps, r.id));
  return transact(deps, () => {
    for (const asset of gone) {
      detachAssetMetrics(deps, asset._id);
      deps.db.delete(assets).where(eq(assets.id, asset._id)).run();
      announce(deps, principal, 'deleted', asset, []);
    }
    return gone.length;
  });
}

/** `DELETE /assets/{id}` and `/infra/assets/{id}`: 404 when unknown, 409 while it has children. */
export function deleteAsset(deps: Deps, principal: Principal, id: string, scope: Scope): void {
  removeRows(deps, principal, [assetRow(deps, id, scope)]);
}

/**
 * `DELETE /assets` (§16): `{ids}` (unknown ids skipped) or the list filters, at least one of them;
 * 400 with neither. Resolves with the number deleted.
 */
export function deleteAssets(
  deps: Deps,
  principal: Principal,
  ids: number[] | undefined,
  filters: AssetFilters,
  metadata: Record<string, string>,
): number {
  const filtered = Object.values(filters).some((v) => v !== undefined) || Object.keys(metadata).length > 0;
  if (ids === undefined && !filtered)
    throw badRequest('name the assets to delete: a body {ids} or at least one list filter');
  const chosen = ids !== undefined ? [...new Set(ids)] : selectedIds(deps, filters, metadata, 'all');
  const rows = chosen.map((id) => findAsset(deps, id)).filter((r): r is AssetRow => r !== undefined);
  return removeRows(deps, principal, rows);
}

/**
 * The subsystem changed its name or went (§16 `metadata`, §3 rule 9): its assets follow, in the
 * unit of that change. A deleted subsystem's assets were unlinked by the foreign key; they lose the
 * server's keys here. The platform makes these changes: `asset.updated`, no audit entry.
 */
export function followSubsystem(deps: Deps, subsystemId: number, deleted: boolean): void {
  const rows = deps.db
    .select()
    .from(assets)
    .where(
      deleted
        ? sql`${assets.subsystemId} is null and json_extract(${assets.metadata}, '$.subsystemId') = ${String(subsystemId)}`
        : eq(assets.subsystemId, subsystemId),
    )
    .all();
  if (rows.length === 0) return;
  const subsystem = deleted ? undefined : findSubsystem(deps, subsystemId);
  const now = deps.clock.now();
  for (const row of rows) {
    const metadata = withSubsystemKeys(row.metadata, subsystem);
    const changed = changedFields(row, { metadata });
    if (changed.length === 0) continue;
    deps.db.update(assets).set({ metadata, updatedAt: now }).where(eq(assets.id, row.id)).run();
    const asset = assetDto(deps, row.id);
    emit(deps, 'asset.updated', {
      _id: asset._id,
      externalRef: asset.externalRef,
      subsystemExternalId: asset.subsystemExternalId,
      changed: deleted ? ['subsystemId', ...changed] : changed,
    });
  }
}
