import { t } from 'elysia';
import { EntityMeta } from '../../../http/entity';
import { Description, DisplayName } from '../../../http/fields';
import type { FieldKinds } from '../../../http/lists';
import { Color } from '../routes-common';

/** A member named by `_id` or externalId (§11.1). */
const Member = t.Union([t.Integer({ minimum: 1 }), t.String({ minLength: 1, maxLength: 128 })], {
  error: 'must be a subsystem or player _id or externalId',
});
const Members = t.Array(Member, { maxItems: 10000 });

/**
 * The exact-match filters of the zones list (C: Responses), judged on the wire form, which the list
 * builds whole before it pages. Not filters: `members` (an array).
 */
export const ZONE_FIELD_FILTERS = {
  displayName: 'string',
  description: 'string',
  color: 'string',
  builtIn: 'boolean',
} as const satisfies FieldKinds;

export const ZoneModel = {
  dto: t.Object({
    ...EntityMeta,
    displayName: t.String(),
    description: t.String(),
    members: t.Array(t.Integer()),
    color: t.String(),
    builtIn: t.Boolean(),
  }),
  create: t.Object({
    displayName: DisplayName,
    description: t.Optional(Description),
    members: t.Optional(Members),
    color: t.Optional(Color),
  }),
  update: t.Object({
    displayName: t.Optional(DisplayName),
    description: t.Optional(Description),
    members: t.Optional(Members),
    color: t.Optional(Color),
  }),
  deleteQuery: t.Object({
    moveTo: t.Optional(t.String({ pattern: '^[0-9]{1,15}$', error: 'must be a zone _id' })),
  }),
};

export type ZoneDto = typeof ZoneModel.dto.static;
export type ZoneCreate = typeof ZoneModel.create.static;
export type ZoneUpdate = typeof ZoneModel.update.static;
