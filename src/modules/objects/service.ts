/**
 * Objects (§12): the records of the object store, their trash and purge. The content itself is
 * written by upload.ts and served by download.ts; files.ts says where it lives.
 *
 * Decisions where §12 is silent:
 * - A name stays taken while its object is in the trash (restoring it must not clash); 409.
 * - A bucket's `objectCount` and `totalSize` count what is not in the trash; the quota
 *   (`media.quotaBytes`) counts every stored byte of cms-media, trash included, since it is on disk.
 * - Deleting an object already in the trash answers 204 and changes nothing, unless `purge=true`.
 * - Restoring an object that is not in the trash answers 200 with it, unchanged.
 * - "In use" counts playables naming it in `objects` or `thumbId`, compositions naming it in a slot
 *   (their playables name it too) and player default states showing it. A forced delete (to the
 *   trash or purged) turns those default states to `none` and raises one warning notification
 *   naming the players; compositions keep the slot and turn `draft` (compositions/listeners.ts).
 * - The days in the trash count elapsed time whatever the wall clock does (`followWallClock`).
 */
import { existsSync } from 'node:fs';
import { and, asc, count, eq, inArray, type SQL, sql, sum } from 'drizzle-orm';
import { audit } from '../../core/platform-log';
import type { Principal } from '../../core/principal';
import { getSettingGroup } from '../../core/settings';
import { prepared } from '../../db/prepared';
import { objects, objectTags } from '../../db/schema';
import type { Deps } from '../../deps';
import { longerThan } from '../../http/characters';
import { AppError, badQuery, conflict, invalid, notFound } from '../../http/errors';
import { cleanName, mergeMetadata, numericId, tagsOf } from '../../http/fields';
import { fieldConditions, type ListResult, metadataMatches, type Page } from '../../http/lists';
import { emit, transact } from '../../realtime/emit';
import { clearDefaultStates } from '../players/default-states';
import {
  BUCKETS,
  type Bucket,
  contentPath,
  ensureMediaDirs,
  isBucket,
  MEDIA_BUCKET,
  mediaDir,
  retireFile,
} from './files';
import { objectLinks } from './links';
import { bucketDto, metadataOf, NOT_USED, type ObjectRow, objectDto, type UsedBy, userMetadata } from './mapper';
import {
  type BucketDto,
  NAME_RULE,
  OBJECT_FIELD_FILTERS,
  OBJECT_NAME_MAX,
  OBJECT_NAME_PATTERN,
  type ObjectCreate,
  type ObjectDto,
  type ObjectListQuery,
  type ObjectUpdate,
} from './model';

const DAY_MS = 24 * 3600 * 1000;

const BUCKET_NAMES: Record<Bucket, string> = {
  'cms-media': 'Media library',
  backups: 'Backups',
  branding: 'Branding',
};

/** The look-up every download and read makes (players fetch ranges by the thousand), prepared once. */
function byId(deps: Deps) {
  return prepared(deps, 'objects', () =>
    deps.db
      .select()
      .from(objects)
      .where(eq(objects.id, sql.placeholder('id')))
      .prepare(),
  );
}

/** The object an `{id}` names: digits only (any other segment is a bucket or a name), else 404. */
export function requireObject(deps: Deps, id: string | number): ObjectRow {
  const n = typeof id === 'number' ? id : numericId(id);
  const row = n === null ? undefined : byId(deps).get({ id: n });
  if (!row) throw notFound('object', id);
  return row;
}

/** A bucket named in a path: 404 when there is no such bucket. */
export function requireBucket(bucket: string): Bucket {
  if (!isBucket(bucket)) throw notFound('bucket', bucket);
  return bucket;
}

/** A bucket this API may write: cms-media; the platform's own buckets are 405 (§12). */
export function requireWritableBucket(bucket: string): Bucket {
  const b = requireBucket(bucket);
  if (b !== MEDIA_BUCKET) {
    throw new AppError('method_not_allowed', `the ${b} bucket holds platform files and is read-only here`);
  }
  return b;
}

/** What the search's `query` looks in, lower-cased once at write time. */
export function searchTextOf(row: Pick<ObjectRow, 'name' | 'displayName' | 'description' | 'tags'>): string {
  return [row.name, row.displayName, row.description, ...row.tags].join('\n').toLowerCase();
}

/**
 * `usedBy` of the given objects (every one when `ids` is null), from one query per kind, each
 * narrowed to those ids in SQL (UNION keeps a playable naming an object twice, or as its thumbnail
 * too, counted once).
 */
export function usageOf(deps: Deps, ids: readonly number[] | null): Map<number, UsedBy> {
  const usage = new Map<number, UsedBy>();
  if (ids !== null && ids.length === 0) return usage;
  const only = ids === null ? null : JSON.stringify(ids);
  const playables = deps.sqlite
    .query<{ id: number; n: number }, [string | null]>(
      `SELECT id, count(*) AS n FROM (
         SELECT p.id AS pid, j.value AS id FROM playables p, json_each(p.objects) j
           WHERE ?1 IS NULL OR j.value IN (SELECT value FROM json_each(?1))
         UNION SELECT id AS pid, thumb_id AS id FROM playables
           WHERE thumb_id IS NOT NULL AND (?1 IS NULL OR thumb_id IN (SELECT value FROM json_each(?1)))
       ) GROUP BY id`,
    )
    .all(only);
  for (const { id, n } of playables) usage.set(id, { ...NOT_USED, playables: n });
  const players = deps.sqlite
    .query<{ id: number; n: number }, [string | null]>(
      `SELECT default_media_id AS id, count(*) AS n FROM subsystems
       WHERE kind = 'player' AND default_media_type = 'single' AND default_media_id IS NOT NULL
         AND (?1 IS NULL OR default_media_id IN (SELECT value FROM json_each(?1)))
       GROUP BY default_media_id`,
    )
    .all(only);
  for (const { id, n } of players) usage.set(id, { ...(usage.get(id) ?? NOT_USED), players: n });
  // A composition filling two slots with one object counts once (DISTINCT).
  const compositions = deps.sqlite
    .query<{ id: number; n: number }, [string | null]>(
      `SELECT id, count(*) AS n FROM (
         SELECT DISTINCT c.id AS cid, json_extract(j.value, '$.objectId') AS id FROM compositions c, json_each(c.slots) j
           WHERE ?1 IS NULL OR json_extract(j.value, '$.objectId') IN (SELECT value FROM json_each(?1))
       ) GROUP BY id`,
    )
    .all(only);
  for (const { id, n } of compositions) usage.set(id, { ...(usage.get(id) ?? NOT_USED), compositions: n });
  return usage;
}

const usedByOf = (deps: Deps, id: number): UsedBy => usageOf(deps, [id]).get(id) ?? NOT_USED;
const inUse = (u: UsedBy): boolean => u.playables + u.compositions + u.players > 0;

export function readObject(deps: Deps, row: ObjectRow, origin: string): ObjectDto {
  return objectDto(deps, row, origin, usedByOf(deps, row.id));
}

/** `GET /objects`: every bucket with its count and size. */
export function listBuckets(deps: Deps): BucketDto[] {
  const totals = deps.db
    .select({ bucket: objects.bucket, n: count(), size: sum(objects.size) })
    .from(objects)
    .where(sql`${objects.status} <> 'deleted'`)
    .groupBy(objects.bucket)
    .all();
  return BUCKETS.map((bucket) => {
    const total = totals.find((x) => x.bucket === bucket);
    return bucketDto(bucket, BUCKET_NAMES[bucket], total?.n ?? 0, Number(total?.size ?? 0));
  });
}

const STATUSES = ['created', 'uploaded', 'deleted'] as const;
type Status = (typeof STATUSES)[number];

/** `status=` of a list: a comma list of statuses; created and uploaded when absent. */
function statusesOf(raw: string | undefined): Status[] {
  if (raw === undefined || raw.trim() === '') return ['created', 'uploaded'];
  const list = raw.split(',').map((s) => s.trim());
  for (const s of list) {
    if (!(STATUSES as readonly string[]).includes(s))
      throw badQuery('/status', 'must be one of: created, uploaded, deleted');
  }
  return list as Status[];
}

/** The condition "has every one of these tags". */
export function hasAllTags(tags: readonly string[]): SQL[] {
  return tags.map(
    (tag) =>
      sql`EXISTS (SELECT 1 FROM ${objectTags} WHERE ${objectTags.objectId} = ${objects.id} AND ${objectTags.tag} = ${tag})`,
  );
}

/**
 * `GET /objects/{bucket}`: in `_id` order, filtered by `status`, `tags` (every one listed),
 * `metadata[key]` (the user's keys and the server's, such as `type`; judged on the rows, as
 * the two are merged on read), the other scalar fields (`OBJECT_FIELD_FILTERS`) and `fuzzy` (name,
 * displayName, description, tags).
 */
export function listObjects(
  deps: Deps,
  bucket: string,
  query: ObjectListQuery,
  metadataFilter: Record<string, string>,
  page: Page,
  origin: string,
): ListResult<ObjectDto> {
  const b = requireBucket(bucket);
  const where: SQL[] = [eq(objects.bucket, b), inArray(objects.status, statusesOf(query.status))];
  if (query.tags !== undefined) where.push(...hasAllTags(tagsOf(query.tags, '/tags')));
  if (query.fuzzy) where.push(sql`instr(${objects.searchText}, ${query.fuzzy.toLowerCase()}) > 0`);
  where.push(
    ...fieldConditions(query, OBJECT_FIELD_FILTERS, {
      name: objects.name,
      displayName: objects.displayName,
      description: objects.description,
      contentType: objects.contentType,
      object: objects.file,
      objectSize: objects.size,
      objectMD5: objects.md5,
      sha256: objects.sha256,
    }),
  );
  const rows = deps.db
    .select()
    .from(objects)
    .where(and(...where))
    .orderBy(asc(objects.id))
    .all()
    .filter((row) => metadataMatches(metadataOf(row), metadataFilter));
  const pageRows = rows.slice(page.offset, page.offset + page.limit);
  const usage = usageOf(
    deps,
    pageRows.map((r) => r.id),
  );
  return {
    items: pageRows.map((row) => objectDto(deps, row, origin, usage.get(row.id) ?? NOT_USED)),
    total: rows.length,
  };
}

/** `GET /objects/{bucket}/_tags`: each tag of the bucket's objects (trash left out) with its count. */
export function bucketTags(deps: Deps, bucket: string): { tag: string; count: number }[] {
  const b = requireBucket(bucket);
  return deps.db
    .select({ tag: objectTags.tag, count: count() })
    .from(objectTags)
    .innerJoin(objects, eq(objects.id, objectTags.objectId))
    .where(and(eq(objects.bucket, b), sql`${objects.status} <> 'deleted'`))
    .groupBy(objectTags.tag)
    .orderBy(asc(objectTags.tag))
    .all();
}

export function objectRowByName(deps: Deps, bucket: string, name: string): ObjectRow | undefined {
  return deps.db
    .select()
    .from(objects)
    .where(and(eq(objects.bucket, bucket), eq(objects.name, name)))
    .get();
}

/** `GET /objects/{bucket}/{name}`. */
export function requireObjectByName(deps: Deps, bucket: string, name: string): ObjectRow {
  const row = objectRowByName(deps, requireBucket(bucket), name);
  if (!row) throw notFound('object', name);
  return row;
}

/** `object.<event>` and, for a person's or token's change, its audit entry (field names only). */
export function emitObject(
  deps: Deps,
  principal: Principal,
  event: 'created' | 'updated' | 'deleted' | 'uploaded' | 'restored',
  row: ObjectRow,
  changed: readonly string[],
  extra: Record<string, unknown> = {},
): void {
  emit(deps, `object.${event}`, {
    _id: row.id,
    bucket: row.bucket,
    name: row.name,
    sha256: row.sha256,
    objectSize: row.size,
    changed: [...changed],
    ...extra,
  });
  audit(deps, principal, event, { kind: 'object', name: `object ${row.id} (${row.name})` }, changed);
}

function replaceTags(deps: Deps, id: number, tags: readonly string[]): void {
  deps.db.delete(objectTags).where(eq(objectTags.objectId, id)).run();
  if (tags.length > 0) {
    deps.db
      .insert(objectTags)
      .values(tags.map((tag) => ({ objectId: id, tag })))
      .run();
  }
}

const NAME = new RegExp(OBJECT_NAME_PATTERN, 'u');

/** A name as §12 allows it (the by-name upload takes it from the path, where no body schema checks it). */
export function requireObjectName(name: string): string {
  if (longerThan(name, OBJECT_NAME_MAX) || !NAME.test(name)) throw invalid('/name', NAME_RULE);
  return name;
}

/**
 * `bucket` and its alias `bucketName` in a create's body (§12: W1, "an existing bucket") must agree with
 * the bucket the path names, or be left out: a client that names another bucket (a read-only one, one
 * that does not exist, or another spelling) meant something this request would not do, and the
 * record is not quietly made in the path's bucket instead (400 at the field). The path's own bucket
 * (what a record of that bucket reads back) is taken. That is all a fetched record sent back carries:
 * only cms-media records can be read (branding images are settings, archives are never served
 * here), and cms-media is the one bucket a record can be made in.
 */
function requireBodyBucket(bucket: Bucket, body: ObjectCreate): void {
  for (const field of ['bucket', 'bucketName'] as const) {
    const named = body[field];
    if (named !== undefined && named !== bucket) {
      throw invalid(`/${field}`, `must be ${bucket} as in the path, or left out`);
    }
  }
}

/** `POST /objects/{bucket}`: the record, without content (`created`). */
export function createObject(deps: Deps, principal: Principal, bucket: string, body: ObjectCreate): ObjectRow {
  const b = requireWritableBucket(bucket);
  requireBodyBucket(b, body);
  requireObjectName(body.name);
  if (objectRowByName(deps, b, body.name)) throw conflict(`an object named ${body.name} exists in ${b}`);
  const displayName = body.displayName == null ? body.name : cleanName(body.displayName);
  const description = body.description ?? '';
  const tags = body.tags === undefined ? [] : tagsOf(body.tags, '/tags');
  const now = deps.clock.now();
  return transact(deps, () => {
    const row = deps.db
      .insert(objects)
      .values({
        bucket: b,
        name: body.name,
        displayName,
        description,
        tags,
        status: 'created',
        expectedSha256: body.sha256?.toLowerCase() ?? null,
        metadata: mergeMetadata({}, userMetadata(body.metadata ?? {})),
        searchText: searchTextOf({ name: body.name, displayName, description, tags }),
        createdAt: now,
        updatedAt: now,
      })
      .returning()
      .get();
    replaceTags(deps, row.id, tags);
    emitObject(deps, principal, 'created', row, []);
    return row;
  });
}

const WIRE: Record<'displayName' | 'description' | 'tags' | 'metadata', string> = {
  displayName: 'displayName',
  description: 'description',
  tags: 'tags',
  metadata: 'metadata',
};

/** `PUT`/`PATCH /objects/{id}`: `displayName`, `description`, `tags`, the user's `metadata`. */
export function updateObject(deps: Deps, principal: Principal, id: string, body: ObjectUpdate): ObjectRow {
  const row = requireObject(deps, id);
  requireWritableBucket(row.bucket);
  const next = {
    displayName:
      body.displayName === undefined
        ? row.displayName
        : body.displayName === null
          ? row.name
          : cleanName(body.displayName),
    description: body.description ?? row.description,
    tags: body.tags === undefined ? row.tags : tagsOf(body.tags, '/tags'),
    metadata:
      body.metadata === undefined
        ? row.metadata
        : mergeMetadata(userMetadata(row.metadata), userMetadata(body.metadata)),
  };
  const changed = (Object.keys(WIRE) as (keyof typeof WIRE)[]).filter(
    (k) => JSON.stringify(next[k]) !== JSON.stringify(row[k]),
  );
  if (changed.length === 0) return row;
  return transact(deps, () => {
    const stored =
      deps.db
        .update(objects)
        .set({ ...next, searchText: searchTextOf({ ...row, ...next }), updatedAt: deps.clock.now() })
        .where(eq(objects.id, row.id))
        .returning()
        .get() ?? row;
    if (changed.includes('tags')) replaceTags(deps, row.id, next.tags);
    emitObject(
      deps,
      principal,
      'updated',
      stored,
      changed.map((k) => WIRE[k]),
    );
    return stored;
  });
}

/** Removes a row now and retires its content file once the removal committed. */
function purgeRow(deps: Deps, principal: Principal, row: ObjectRow, cleared: readonly unknown[] = []): void {
  const path = contentPath(deps, row);
  transact(deps, (unit) => {
    deps.db.delete(objects).where(eq(objects.id, row.id)).run();
    emitObject(deps, principal, 'deleted', row, [], {
      purged: true,
      ...(cleared.length > 0 ? { clearedDefaultStates: cleared } : {}),
    });
    if (path) unit.afterCommit(() => retireFile(deps, path));
  });
}

/**
 * `DELETE /objects/{id}`: to the trash for `media.trashDays`; `purge=true` removes it and its
 * content at once. An object in use is a 409 unless `force=true` (§12 rule 7).
 */
export function deleteObject(
  deps: Deps,
  principal: Principal,
  id: string,
  options: { purge: boolean; force: boolean },
): void {
  const row = requireObject(deps, id);
  requireWritableBucket(row.bucket);
  const usage = usedByOf(deps, row.id);
  if (inUse(usage) && !options.force) {
    throw conflict(
      `object ${row.id} is in use by ${usage.playables} playable(s)${usage.compositions > 0 ? `, ${usage.compositions} composition(s)` : ''} and ${usage.players} player default state(s); delete with force=true to remove it anyway`,
    );
  }
  // Forced: default states showing it turn to none (§13 "Never lost"); `object.deleted` names them,
  // and players/listeners.ts raises the notification in the same unit.
  const clearDefaults = () =>
    clearDefaultStates(deps, 'single', row.id).map((p) => ({
      _id: p.id,
      externalId: p.externalId,
      displayName: p.displayName,
    }));
  if (options.purge) {
    transact(deps, () => purgeRow(deps, principal, row, clearDefaults()));
    return;
  }
  if (row.status === 'deleted') return;
  followWallClock(deps);
  const now = deps.clock.now();
  const purgeAt = now + getSettingGroup(deps, 'media').trashDays * DAY_MS;
  transact(deps, () => {
    const cleared = clearDefaults();
    const stored =
      deps.db
        .update(objects)
        .set({ status: 'deleted', deletedAt: now, purgeAt, updatedAt: now })
        .where(eq(objects.id, row.id))
        .returning()
        .get() ?? row;
    emitObject(deps, principal, 'deleted', stored, [], {
      purged: false,
      purgeAt: new Date(purgeAt).toISOString(),
      ...(cleared.length > 0 ? { clearedDefaultStates: cleared } : {}),
    });
  });
}

/** `POST /objects/{id}/restore`: back from the trash, as it was (§12 rule 7). */
export function restoreObject(deps: Deps, principal: Principal, id: string): ObjectRow {
  const row = requireObject(deps, id);
  requireWritableBucket(row.bucket);
  if (row.status !== 'deleted') return row;
  return transact(deps, () => {
    const stored =
      deps.db
        .update(objects)
        .set({
          status: row.file === null ? 'created' : 'uploaded',
          deletedAt: null,
          purgeAt: null,
          updatedAt: deps.clock.now(),
        })
        .where(eq(objects.id, row.id))
        .returning()
        .get() ?? row;
    emitObject(deps, principal, 'restored', stored, ['status'], { replaced: false });
    return stored;
  });
}

/**
 * Keeps an object's time in the trash (`media.trashDays`, "deleted media stays restorable for 7
 * days") counting elapsed time whatever the wall clock does (decided here, the contract being
 * silent): when the clock steps (NTP, an operator's date change; `WallSteps`), `deletedAt` and
 * `purgeAt` of what is in the trash move with it, so a step of 8 days ahead does not purge media
 * deleted an hour ago, and a step back does not keep it past its days. An object deleted ahead of the
 * clock, where no step could be seen (a restart whose clock is behind what was stored, an RTC that
 * lost time in a power cut), counts its days from then. Called by the purge (every 10 minutes) and
 * before a delete stamps its times; what a read shows follows at the next of those.
 */
export function followWallClock(deps: Deps): void {
  const state = deps.objects;
  const look = state.wallSteps.look(deps.clock);
  if (!look) return;
  const { step } = look;
  const now = deps.clock.now();
  transact(deps, () => {
    if (step !== 0) {
      deps.sqlite.run(
        `UPDATE objects SET deleted_at = deleted_at + ?1, purge_at = purge_at + ?1
         WHERE status = 'deleted' AND purge_at IS NOT NULL`,
        [step],
      );
    }
    deps.sqlite.run(
      `UPDATE objects SET purge_at = purge_at + (?1 - deleted_at), deleted_at = ?1
       WHERE status = 'deleted' AND purge_at IS NOT NULL AND deleted_at > ?1`,
      [now],
    );
  });
}

/** The housekeeping job: purges what has been in the trash past its `purgeAt`. Returns how many. */
export function purgeExpired(deps: Deps, principal: Principal): number {
  followWallClock(deps);
  const due = deps.db
    .select()
    .from(objects)
    .where(and(eq(objects.status, 'deleted'), sql`${objects.purgeAt} <= ${deps.clock.now()}`))
    .all();
  for (const row of due) purgeRow(deps, principal, row);
  return due.length;
}

/** Every stored content file, as `<bucket>/<file>`, for the start-up sweep (files.ts). */
export function namedFiles(deps: Deps): Set<string> {
  const rows = deps.db
    .select({ bucket: objects.bucket, file: objects.file })
    .from(objects)
    .where(sql`${objects.file} IS NOT NULL`)
    .all();
  return new Set(rows.map((r) => `${r.bucket}/${r.file}`));
}

/**
 * After a restore (§17 rule 4.7): objects whose content file is not on disk lose their content fields;
 * those not in the trash go back to `created` (`object.updated`). How many went back to `created`.
 */
export function forgetMissingContent(deps: Deps): number {
  const rows = deps.db.select().from(objects).where(sql`${objects.file} IS NOT NULL`).all();
  const missing = rows.filter((row) => {
    const path = contentPath(deps, row);
    return path !== null && !existsSync(path);
  });
  if (missing.length === 0) return 0;
  transact(deps, () => {
    for (const row of missing) {
      const status = row.status === 'deleted' ? 'deleted' : 'created';
      deps.db
        .update(objects)
        .set({
          status,
          file: null,
          contentType: null,
          size: null,
          md5: null,
          sha256: null,
          media: null,
          mediaType: null,
          duration: null,
          updatedAt: deps.clock.now(),
        })
        .where(eq(objects.id, row.id))
        .run();
      emit(deps, 'object.updated', { _id: row.id, bucket: row.bucket, name: row.name, changed: ['status', 'sha256'] });
    }
  });
  return missing.filter((row) => row.status !== 'deleted').length;
}

/** Stored bytes of cms-media, trash included (the quota's measure). */
export function storedBytes(deps: Deps): number {
  const row = deps.db
    .select({ size: sum(objects.size) })
    .from(objects)
    .where(eq(objects.bucket, MEDIA_BUCKET))
    .get();
  return Number(row?.size ?? 0);
}

/** Free bytes on the disk that holds the media (what `storage-low` and upload admission judge). */
export function mediaFreeBytes(deps: Deps): number {
  ensureMediaDirs(deps);
  return deps.objects.freeBytes(mediaDir(deps));
}

/**
 * The schedule's `objectList` (§11.5): each object of `ids` that has content to download, in that
 * order, as `{_id, bucket, name, objectSize, objectMD5, sha256, _links: {self, get}}` with `get`
 * signed for `origin`. Objects without content, in the trash or purged are left out: a player
 * could not fetch them.
 */
export function objectListOf(deps: Deps, ids: readonly number[], origin: string) {
  if (ids.length === 0) return [];
  const rows = deps.db
    .select()
    .from(objects)
    .where(and(inArray(objects.id, [...ids]), eq(objects.status, 'uploaded')))
    .all();
  const byId = new Map(rows.map((r) => [r.id, r]));
  return ids.flatMap((id) => {
    const row = byId.get(id);
    if (!row) return [];
    const links = objectLinks(deps, origin, row.id);
    return [
      {
        _id: row.id,
        bucket: row.bucket,
        name: row.name,
        objectSize: row.size,
        objectMD5: row.md5,
        sha256: row.sha256,
        _links: { self: links.self, get: links.get },
      },
    ];
  });
}
