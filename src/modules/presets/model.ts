import { t } from 'elysia';
import { EntityMeta } from '../../http/entity';
import { Description, DisplayName, NullableExternalRef, SubsystemNameFields } from '../../http/fields';
import { type FieldKinds, fieldFilterQuery, PageQuery } from '../../http/lists';

export const MAX_ENTRIES = 500;

const EntryDto = t.Object({
  /** The parameter's `_id`. */
  parameter: t.Integer(),
  externalRef: t.String(),
  value: t.String(),
});

const PresetDtoModel = t.Object({
  ...EntityMeta,
  subsystemId: t.Integer(),
  subsystemExternalId: t.String(),
  externalRef: t.Union([t.String(), t.Null()]),
  displayName: t.String(),
  description: t.String(),
  parameters: t.Array(EntryDto),
  lastAppliedAt: t.Union([t.String({ format: 'date-time' }), t.Null()]),
});

/**
 * The exact-match filters on the other stored scalar fields (C: Responses). Not filters:
 * `lastAppliedAt` (a time) and `parameters` (an array).
 */
export const PRESET_FIELD_FILTERS = {
  displayName: 'string',
  description: 'string',
} as const satisfies FieldKinds;

export const PresetModel = {
  dto: PresetDtoModel,
  list: t.Array(PresetDtoModel),
  /**
   * One body for every write (C: Requests): all optional here; on create the subsystem, displayName
   * and parameters are required (checked by the service). The subsystem and externalRef are W1;
   * `lastAppliedAt` is read-only. `parameters` replaces the stored entries whole.
   */
  write: t.Object({
    _id: t.Optional(t.Integer({ minimum: 1 })),
    ...SubsystemNameFields,
    externalRef: t.Optional(NullableExternalRef),
    displayName: t.Optional(DisplayName),
    description: t.Optional(Description),
    parameters: t.Optional(
      t.Array(
        t.Object({
          parameter: t.Union([t.Integer({ minimum: 1 }), t.String({ minLength: 1, maxLength: 256 })], {
            error: 'must be an _id or externalRef',
          }),
          value: t.Unknown({ description: 'text; numbers and booleans as their text' }),
        }),
        { minItems: 1, maxItems: MAX_ENTRIES },
      ),
    ),
  }),
  listQuery: t.Object({
    ...PageQuery,
    subsystemExternalId: t.Optional(t.String()),
    subsystemId: t.Optional(t.String()),
    externalRef: t.Optional(t.String()),
    ...fieldFilterQuery(PRESET_FIELD_FILTERS),
    fuzzy: t.Optional(t.String()),
  }),
  applied: t.Object({
    presetId: t.Integer(),
    appliedAt: t.String({ format: 'date-time' }),
    parameters: t.Array(EntryDto),
    messageUuid: t.String(),
  }),
};

export type PresetDto = typeof PresetModel.dto.static;
export type PresetWrite = typeof PresetModel.write.static;
export type PresetListQuery = typeof PresetModel.listQuery.static;
export type PresetEntryDto = typeof EntryDto.static;
export type AppliedPresetDto = typeof PresetModel.applied.static;
