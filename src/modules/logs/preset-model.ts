import { t } from 'elysia';
import { EntityMeta } from '../../http/entity';
import { NO_CONTROL, Tags } from '../../http/fields';
import { type FieldKinds, fieldFilterQuery, PageQuery } from '../../http/lists';

const NullableTime = t.Union([t.String({ format: 'date-time' }), t.Null()], {
  error: 'must be an ISO-8601 time or null',
});

const PresetDto = t.Object({
  ...EntityMeta,
  name: t.String(),
  type: t.String(),
  tags: t.Array(t.String()),
  startDate: t.Union([t.String(), t.Null()]),
  endDate: t.Union([t.String(), t.Null()]),
  filters: t.Unknown(),
  currentSearch: t.String(),
  searchOptions: t.Unknown(),
  basicFilter: t.Unknown(),
  isGlobal: t.Boolean(),
  userId: t.Union([t.Integer(), t.Null()]),
  createdBy: t.String(),
});

/**
 * The exact-match filters of the saved searches beside `type` (C: Responses), on the wire form. Not
 * filters: the times and the stored search itself (`filters`, `searchOptions`, `basicFilter`, `tags`).
 */
export const LOG_PRESET_FIELD_FILTERS = {
  name: 'string',
  currentSearch: 'string',
  isGlobal: 'boolean',
  userId: 'integer',
  createdBy: 'string',
} as const satisfies FieldKinds;

export const PresetModel = {
  dto: PresetDto,
  list: t.Array(PresetDto),
  /**
   * One body for create and update; `name` is required on create (checked by the service).
   * `filters`, `searchOptions` and `basicFilter` are the client's own JSON, kept as sent (16 KiB each).
   */
  write: t.Object({
    name: t.Optional(t.String({ minLength: 1, maxLength: 200, pattern: NO_CONTROL })),
    type: t.Optional(t.String({ minLength: 1, maxLength: 64 })),
    tags: t.Optional(Tags),
    startDate: t.Optional(NullableTime),
    endDate: t.Optional(NullableTime),
    filters: t.Optional(t.Unknown()),
    currentSearch: t.Optional(t.String({ maxLength: 2000 })),
    searchOptions: t.Optional(t.Unknown()),
    basicFilter: t.Optional(t.Unknown()),
    isGlobal: t.Optional(t.BooleanString()),
  }),
  listQuery: t.Object({ ...PageQuery, type: t.Optional(t.String()), ...fieldFilterQuery(LOG_PRESET_FIELD_FILTERS) }),
};

export type PresetDto = typeof PresetModel.dto.static;
export type PresetWrite = typeof PresetModel.write.static;
