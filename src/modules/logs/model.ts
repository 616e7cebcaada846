import { t } from 'elysia';
import { LogDtoModel } from '../../core/log-entry';
import { SubsystemNameFields, Tags } from '../../http/fields';

export const SEVERITIES = ['debug', 'info', 'warning', 'error', 'critical'] as const;
export const CATEGORIES = ['activity', 'audit', 'security', 'system'] as const;
export const CREATOR_TYPES = ['subsystem', 'user', 'system'] as const;
export const MAX_VALUE = 16384;

const PAGE_RULE = 'must be an integer of at least 1';
const PER_PAGE_RULE = 'must be an integer from 1 to 1000';

/** `page`/`perPage` of the §9 page wrapper, validated as digit strings and converted by `logPageOf`. */
export const LogPageQuery = {
  page: t.Optional(t.String({ pattern: '^[0-9]{1,9}$', error: PAGE_RULE })),
  perPage: t.Optional(t.String({ pattern: '^[0-9]{1,9}$', error: PER_PAGE_RULE })),
};

export const PAGE_RULES = { page: PAGE_RULE, perPage: PER_PAGE_RULE };

export const LogModel = {
  dto: LogDtoModel,
  page: t.Object({
    page: t.Integer(),
    perPage: t.Integer(),
    totalPages: t.Integer(),
    totalLogs: t.Integer(),
    logs: t.Array(LogDtoModel),
  }),
  /** Every field optional; read-only and unknown fields are ignored. `severity` and `value` are checked by the service. */
  create: t.Object({
    key: t.Optional(t.String({ minLength: 1, maxLength: 128 })),
    value: t.Optional(
      t.Unknown({ description: `text of at most ${MAX_VALUE} characters; other JSON is stored as its text` }),
    ),
    severity: t.Optional(t.String({ description: `one of ${SEVERITIES.join(', ')}; warn is stored as warning` })),
    createdBy: t.Optional(t.String({ minLength: 1, maxLength: 128 })),
    createdByType: t.Optional(t.Union(CREATOR_TYPES.map((c) => t.Literal(c)))),
    tags: t.Optional(Tags),
    ...SubsystemNameFields,
    host: t.Optional(
      t.Union([t.String({ maxLength: 255 }), t.Null()], {
        error: 'must be a string of at most 255 characters or null',
      }),
    ),
  }),
  listQuery: t.Object({
    ...LogPageQuery,
    severity: t.Optional(t.String()),
    key: t.Optional(t.String()),
    category: t.Optional(t.String()),
    createdBy: t.Optional(t.String()),
    createdByType: t.Optional(t.String()),
    subsystemExternalId: t.Optional(t.String()),
    tags: t.Optional(t.String()),
    from: t.Optional(t.String()),
    to: t.Optional(t.String()),
    fuzzy: t.Optional(t.String()),
  }),
  purgeQuery: t.Object({ before: t.Optional(t.String()) }),
};

export type LogCreate = typeof LogModel.create.static;
export type LogListQuery = typeof LogModel.listQuery.static;
export type LogPage = typeof LogModel.page.static;
