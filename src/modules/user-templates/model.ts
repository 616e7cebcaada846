import { t } from 'elysia';
import { EntityMeta } from '../../http/entity';
import { Description, DisplayName, IdList, Metadata } from '../../http/fields';
import type { FieldKinds } from '../../http/lists';

/** Booleans come as `true`/`false` or as the strings "true"/"false" (§0.2). */
const BoolInput = t.Union([t.Boolean(), t.Literal('true'), t.Literal('false')], { error: 'must be true or false' });
const RoleIds = t.Array(t.Integer({ minimum: 1 }), { minItems: 1, maxItems: 100 });

/**
 * The exact-match filters of the user templates list (C: Responses), judged on the wire form, which the list
 * builds whole before it pages. Not filters: the arrays and `preferences` (an object).
 */
export const USER_TEMPLATE_FIELD_FILTERS = {
  displayName: 'string',
  description: 'string',
  isDefault: 'boolean',
} as const satisfies FieldKinds;

export const UserTemplateModel = {
  dto: t.Object({
    ...EntityMeta,
    displayName: t.String(),
    description: t.String(),
    roleIds: t.Array(t.Integer()),
    controlpanels: t.Array(t.Integer()),
    preferences: t.Record(t.String(), t.Unknown()),
    isDefault: t.Boolean(),
  }),
  create: t.Object({
    displayName: DisplayName,
    description: t.Optional(Description),
    roleIds: t.Optional(RoleIds),
    controlpanels: t.Optional(IdList),
    preferences: t.Optional(Metadata),
    isDefault: t.Optional(BoolInput),
  }),
  update: t.Object({
    displayName: t.Optional(DisplayName),
    description: t.Optional(Description),
    roleIds: t.Optional(RoleIds),
    controlpanels: t.Optional(IdList),
    preferences: t.Optional(Metadata),
    isDefault: t.Optional(BoolInput),
  }),
};

export type UserTemplateDto = typeof UserTemplateModel.dto.static;
export type UserTemplateCreate = typeof UserTemplateModel.create.static;
export type UserTemplateUpdate = typeof UserTemplateModel.update.static;
