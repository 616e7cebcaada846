import { sql } from 'drizzle-orm';
import { index, integer, primaryKey, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';
import { timestamps } from './common';

/** What the server works out from an object's content (§12): kept apart from the user's `metadata` keys. */
export interface ObjectMediaMeta {
  type: 'video' | 'image' | 'audio' | 'document' | 'other';
  subtype: string;
  extension: string;
  duration?: number;
  mediaInfo?: {
    '@type': 'Video' | 'Image' | 'Audio';
    width?: number;
    height?: number;
    duration?: number;
    frameRate?: number;
  };
}

/**
 * The object store's records (§12). The content lives on disk under the data directory
 * (modules/objects/files.ts), named by `file`; a record without content (`created`) has none.
 */
export const objects = sqliteTable(
  'objects',
  {
    id: integer().primaryKey({ autoIncrement: true }),
    bucket: text().notNull(),
    name: text().notNull(),
    displayName: text().notNull(),
    description: text().notNull().default(''),
    tags: text({ mode: 'json' }).$type<string[]>().notNull(),
    status: text({ enum: ['created', 'uploaded', 'deleted'] }).notNull(),
    /** The stored file's name in the bucket's directory; null until content arrives. */
    file: text(),
    contentType: text(),
    size: integer(),
    md5: text(),
    sha256: text(),
    /** The SHA-256 a client announced at create, checked against the first upload. */
    expectedSha256: text(),
    /** The user's own keys; the server's (`media`) win on read. */
    metadata: text({ mode: 'json' }).$type<Record<string, unknown>>().notNull(),
    media: text({ mode: 'json' }).$type<ObjectMediaMeta>(),
    /** Copied out of `media` for search filters and sorts. */
    mediaType: text(),
    duration: integer(),
    /** Lower-cased name, displayName, description and tags: what the search's `query` looks in. */
    searchText: text().notNull(),
    deletedAt: integer(),
    purgeAt: integer(),
    ...timestamps,
  },
  (t) => [
    uniqueIndex('objects_bucket_name').on(t.bucket, t.name),
    index('objects_bucket_created').on(t.bucket, t.createdAt),
    index('objects_purge').on(t.purgeAt).where(sql`${t.purgeAt} IS NOT NULL`),
  ],
);

/** One row per tag of an object, for the tag filters and `_tags` counts. */
export const objectTags = sqliteTable(
  'object_tags',
  {
    objectId: integer()
      .notNull()
      .references(() => objects.id, { onDelete: 'cascade' }),
    tag: text().notNull(),
  },
  (t) => [primaryKey({ columns: [t.objectId, t.tag] }), index('object_tags_tag').on(t.tag, t.objectId)],
);
