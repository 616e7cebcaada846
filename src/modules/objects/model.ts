import { Type } from '@sinclair/typebox';
import { t } from 'elysia';
import { EntityMeta } from '../../http/entity';
import { CONTROL, Description, Metadata, NullableDisplayName, Tags } from '../../http/fields';
import { type FieldKinds, fieldFilterQuery, PageQuery } from '../../http/lists';

/**
 * §12 name rule: 1–255 characters, no `/`, `\` or control characters, not `.` or `..`, not all digits, no
 * leading `_`. The length is the schema's (counted in characters, http/characters.ts), not the pattern's:
 * a pattern counts UTF-16 units.
 */
export const OBJECT_NAME_MAX = 255;
export const OBJECT_NAME_PATTERN = `^(?![0-9]+$)(?!\\.\\.?$)(?!_)[^/\\\\${CONTROL}]+$`;
export const NAME_RULE =
  'must be 1 to 255 characters without / \\ or control characters, not . or .., not all digits and not starting with _';
export const ObjectName = t.String({
  minLength: 1,
  maxLength: OBJECT_NAME_MAX,
  pattern: OBJECT_NAME_PATTERN,
  error: NAME_RULE,
});

const Sha256 = t.String({ pattern: '^[0-9a-fA-F]{64}$', error: 'must be 64 hexadecimal digits' });

/**
 * Response integers are TypeBox's plain Integer (as in variables/model.ts): Elysia's `t.Integer`
 * carries a string-coercion transform that sends every answer through TypeBox's slow Value.Encode
 * (a search answering 880 objects spent half its time there).
 */
const Int = () => Type.Integer();

const MediaInfoModel = t.Object({
  '@type': t.String(),
  width: t.Optional(Int()),
  height: t.Optional(Int()),
  duration: t.Optional(Int()),
  frameRate: t.Optional(t.Number()),
});

const ObjectDtoModel = t.Object({
  ...EntityMeta,
  _id: Type.Integer({ minimum: 1 }),
  _links: t.Object({ self: t.String(), object: t.String(), get: t.String() }),
  bucket: t.String(),
  bucketName: t.String(),
  name: t.String(),
  displayName: t.String(),
  description: t.String(),
  tags: t.Array(t.String()),
  status: t.Union([t.Literal('created'), t.Literal('uploaded'), t.Literal('deleted')]),
  contentType: t.Union([t.String(), t.Null()]),
  object: t.Union([t.String(), t.Null()]),
  objectSize: t.Union([Int(), t.Null()]),
  objectMD5: t.Union([t.String(), t.Null()]),
  sha256: t.Union([t.String(), t.Null()]),
  metadata: t.Record(t.String(), t.Unknown()),
  usedBy: t.Object({ playables: Int(), compositions: Int(), players: Int() }),
  deletedAt: t.Union([t.String(), t.Null()]),
  purgeAt: t.Union([t.String(), t.Null()]),
});

const BucketDtoModel = t.Object({
  bucket: t.String(),
  displayName: t.String(),
  objectCount: Int(),
  totalSize: Int(),
  _links: t.Object({ self: t.String(), tags: t.String() }),
});

const BoolQuery = t.Optional(t.Union([t.Literal('true'), t.Literal('false')]));

/**
 * The exact-match filters of `GET /objects/{bucket}` on the other stored scalar fields (C: Responses),
 * beside `status`, `tags`, `metadata[key]` and `fuzzy`. Not filters: `bucket` and `bucketName` (the
 * path names the bucket), the times, `usedBy` (counted for the page only).
 */
export const OBJECT_FIELD_FILTERS = {
  name: 'string',
  displayName: 'string',
  description: 'string',
  contentType: 'string',
  object: 'string',
  objectSize: 'integer',
  objectMD5: 'string',
  sha256: 'string',
} as const satisfies FieldKinds;

export const ObjectModel = {
  dto: ObjectDtoModel,
  list: t.Array(ObjectDtoModel),
  buckets: t.Array(BucketDtoModel),
  tags: t.Array(t.Object({ tag: t.String(), count: Int() })),
  /**
   * Create (the bucket comes from the path; `bucket`/`bucketName` in the body must be the same or
   * absent, service.ts). A fetched record sent back is a create body (C: Requests): its
   * read-only fields are ignored, and `sha256` is the expected checksum of the content to come, `null`
   * (what a record without content reads back) the same as none.
   */
  create: t.Object({
    bucket: t.Optional(t.String()),
    bucketName: t.Optional(t.String()),
    name: ObjectName,
    displayName: t.Optional(NullableDisplayName),
    description: t.Optional(Description),
    tags: t.Optional(Tags),
    metadata: t.Optional(Metadata),
    sha256: t.Optional(t.Union([Sha256, t.Null()])),
  }),
  /** PUT and PATCH: the writable fields; everything else in the body is ignored (C: Requests). */
  update: t.Object({
    displayName: t.Optional(NullableDisplayName),
    description: t.Optional(Description),
    tags: t.Optional(Tags),
    metadata: t.Optional(Metadata),
  }),
  listQuery: t.Object({
    ...PageQuery,
    status: t.Optional(t.String({ maxLength: 100 })),
    tags: t.Optional(t.String({ maxLength: 50 * 65 })),
    fuzzy: t.Optional(t.String({ maxLength: 200 })),
    ...fieldFilterQuery(OBJECT_FIELD_FILTERS),
  }),
  deleteQuery: t.Object({ purge: BoolQuery, force: BoolQuery }),
  contentQuery: t.Object({
    expires: t.Optional(t.String({ maxLength: 20 })),
    signature: t.Optional(t.String({ maxLength: 100 })),
    /** The player the download counts for (§12 rule 6): its externalId (or `_id`). */
    player: t.Optional(t.String({ maxLength: 128 })),
  }),
  idParams: t.Object({ id: t.String({ minLength: 1, maxLength: 255 }) }),
  nameParams: t.Object({ id: t.String({ minLength: 1, maxLength: 64 }), name: t.String({ minLength: 1 }) }),
  mediaInfo: MediaInfoModel,
};

export type ObjectDto = typeof ObjectModel.dto.static;
export type ObjectCreate = typeof ObjectModel.create.static;
export type ObjectUpdate = typeof ObjectModel.update.static;
export type ObjectListQuery = typeof ObjectModel.listQuery.static;
export type BucketDto = typeof BucketDtoModel.static;
