/** The wire shapes of backups (§17). */
import { type Static, t } from 'elysia';
import { EntityMeta } from '../../http/entity';
import { Description, DisplayName } from '../../http/fields';
import { type FieldKinds, fieldFilterQuery, PageQuery } from '../../http/lists';

const Time = t.String({ format: 'date-time' });
const Nullable = <T extends ReturnType<typeof t.String> | ReturnType<typeof t.Integer> | ReturnType<typeof t.Boolean>>(
  schema: T,
) => t.Union([schema, t.Null()]);
const BoolIn = t.Union([t.Boolean(), t.BooleanString()], { error: 'must be true or false' });

const Job = t.Object({
  id: t.String(),
  type: t.Union([t.Literal('backup'), t.Literal('verify'), t.Literal('restore')]),
  state: t.Union([t.Literal('queued'), t.Literal('running'), t.Literal('succeeded'), t.Literal('failed')]),
  progress: t.Integer({ minimum: 0, maximum: 100 }),
  startedAt: Nullable(Time),
  finishedAt: Nullable(Time),
  error: Nullable(t.String()),
});

const Problem = t.Object({ code: t.String(), member: Nullable(t.String()), message: t.String() });

const VerifyResult = t.Object({ ok: t.Boolean(), checkedAt: Time, problems: t.Array(Problem) });

const BackupDto = t.Object({
  ...EntityMeta,
  _links: t.Object({ self: t.String(), object: t.String() }),
  displayName: t.String(),
  description: t.String(),
  includeMedia: t.Boolean(),
  keep: t.Boolean(),
  type: t.String(),
  status: t.String(),
  job: t.Union([Job, t.Null()]),
  jobId: Nullable(t.String()),
  bucket: t.Literal('backups'),
  object: Nullable(t.String()),
  objectSize: Nullable(t.Integer()),
  sha256: Nullable(t.String()),
  encrypted: t.Boolean(),
  schemaVersion: Nullable(t.Integer()),
  productVersion: Nullable(t.String()),
  isValid: Nullable(t.Boolean()),
  lastTimeVerified: Nullable(Time),
  verifyResult: t.Union([VerifyResult, t.Null()]),
  isInFtp: t.Boolean(),
  updatedAt: Time,
  __v: t.Integer(),
});

/** A new backup's fields (`POST /backups/createBackup`, or the upsert without `_id`). */
const create = t.Object({
  displayName: t.Optional(DisplayName),
  description: t.Optional(Description),
  includeMedia: t.Optional(BoolIn),
  keep: t.Optional(BoolIn),
});

/** The writable fields of a stored backup. */
const update = t.Object({
  displayName: t.Optional(DisplayName),
  description: t.Optional(Description),
  keep: t.Optional(BoolIn),
});

/** Upsert: an `_id` naming a stored backup updates it; without one (or with an unknown one) a backup starts. */
const upsert = t.Object({
  _id: t.Optional(t.Union([t.Integer({ minimum: 1 }), t.String({ pattern: '^[0-9]{1,15}$' })])),
  displayName: t.Optional(DisplayName),
  description: t.Optional(Description),
  includeMedia: t.Optional(BoolIn),
  keep: t.Optional(BoolIn),
});

const restore = t.Object({
  confirm: t.Optional(BoolIn),
  passphrase: t.Optional(t.String({ minLength: 1, maxLength: 256 })),
  includeMedia: t.Optional(BoolIn),
  license: t.Optional(t.String()),
});

/**
 * The exact-match filters on the other stored scalar fields (C: Responses), in SQL, beside `type`,
 * `status` and `isValid` (comma lists, kept as they were). Not filters: `bucket` (always `backups`),
 * `isInFtp` (always false), `jobId` (inside the job), the times and objects.
 */
export const BACKUP_FIELD_FILTERS = {
  displayName: 'string',
  description: 'string',
  includeMedia: 'boolean',
  keep: 'boolean',
  object: 'string',
  objectSize: 'integer',
  sha256: 'string',
  encrypted: 'boolean',
  schemaVersion: 'integer',
  productVersion: 'string',
} as const satisfies FieldKinds;

const listQuery = t.Object({
  ...PageQuery,
  ...fieldFilterQuery(BACKUP_FIELD_FILTERS),
  type: t.Optional(t.String({ maxLength: 64 })),
  status: t.Optional(t.String({ maxLength: 64 })),
  isValid: t.Optional(t.String({ maxLength: 8 })),
});

const uploadQuery = t.Object({
  displayName: t.Optional(DisplayName),
  description: t.Optional(Description),
});

export const BackupModel = {
  dto: BackupDto,
  list: t.Array(BackupDto),
  listQuery,
  create,
  update,
  upsert,
  restore,
  uploadQuery,
  deleteQuery: t.Object({ force: t.Optional(t.String({ maxLength: 8 })) }),
};

export type BackupDto = Static<typeof BackupDto>;
export type BackupCreate = Static<typeof create>;
export type BackupUpdate = Static<typeof update>;
export type BackupUpsert = Static<typeof upsert>;
export type BackupRestore = Static<typeof restore>;
export type BackupListQuery = Static<typeof listQuery>;
