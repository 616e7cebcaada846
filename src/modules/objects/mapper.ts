/** The only row → wire mapping of an object (§12). */
import { iso } from '../../clock';
import type { objects } from '../../db/schema';
import type { Deps } from '../../deps';
import { objectLinks } from './links';
import type { BucketDto, ObjectDto } from './model';

export type ObjectRow = typeof objects.$inferSelect;

/** How many of each kind name an object (`usedBy`, §12 rule 7). */
export interface UsedBy {
  playables: number;
  compositions: number;
  players: number;
}

export const NOT_USED: UsedBy = { playables: 0, compositions: 0, players: 0 };

/**
 * The `metadata` keys the server fills from the content (§12). They are the server's alone: a
 * client's keys of these names are ignored when sent (C: Requests: a read-only field in a body is
 * ignored, never an error, so a whole object fetched and sent back is taken), and any an older build
 * stored among the user's keys are never shown, matched or kept by the next metadata write. So an
 * image (which has no `duration`) never shows a client's `duration: "abc"` in reads, lists, search
 * or its filters.
 */
export const SERVER_METADATA_KEYS: ReadonlySet<string> = new Set([
  'type',
  'subtype',
  'extension',
  'duration',
  'mediaInfo',
]);

/** A client's (or stored user) metadata without the server's keys. */
export function userMetadata(metadata: Record<string, unknown>): Record<string, unknown> {
  if (!Object.keys(metadata).some((k) => SERVER_METADATA_KEYS.has(k))) return metadata;
  return Object.fromEntries(Object.entries(metadata).filter(([k]) => !SERVER_METADATA_KEYS.has(k)));
}

/** The metadata a client sees: its own keys, then what the server worked out from the content. */
export function metadataOf(row: ObjectRow): Record<string, unknown> {
  const user = userMetadata(row.metadata);
  if (!row.media) return user;
  const { type, subtype, extension, duration, mediaInfo } = row.media;
  return {
    ...user,
    type,
    subtype,
    extension,
    ...(duration === undefined ? {} : { duration }),
    ...(mediaInfo === undefined ? {} : { mediaInfo }),
  };
}

export function objectDto(deps: Deps, row: ObjectRow, origin: string, usedBy: UsedBy = NOT_USED): ObjectDto {
  return {
    _id: row.id,
    _createdAt: iso(row.createdAt),
    _updatedAt: iso(row.updatedAt),
    _links: objectLinks(deps, origin, row.id),
    bucket: row.bucket,
    bucketName: row.bucket,
    name: row.name,
    displayName: row.displayName,
    description: row.description,
    tags: row.tags,
    status: row.status,
    contentType: row.contentType,
    object: row.file,
    objectSize: row.size,
    objectMD5: row.md5,
    sha256: row.sha256,
    metadata: metadataOf(row),
    usedBy,
    deletedAt: row.deletedAt === null ? null : iso(row.deletedAt),
    purgeAt: row.purgeAt === null ? null : iso(row.purgeAt),
  };
}

/** The data of `object.*` events (§21): the entity's `_id`, what changed, and the content's identity. */
export function objectEventData(row: ObjectRow, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { _id: row.id, bucket: row.bucket, name: row.name, sha256: row.sha256, objectSize: row.size, ...extra };
}

export function bucketDto(bucket: string, displayName: string, objectCount: number, totalSize: number): BucketDto {
  return {
    bucket,
    displayName,
    objectCount,
    totalSize,
    _links: { self: `/api/v1/objects/${bucket}`, tags: `/api/v1/objects/${bucket}/_tags` },
  };
}
