import { t } from 'elysia';
import { EntityMeta } from '../../http/entity';
import { DisplayName, IdList } from '../../http/fields';
import { NullableInstant } from '../../http/instant';
import type { FieldKinds } from '../../http/lists';

/**
 * The exact-match filters of the tokens list (C: Responses), judged on the wire form, which the list
 * builds whole before it pages. Not filters: the times and `subsystemIds` (an array).
 */
export const TOKEN_FIELD_FILTERS = {
  displayName: 'string',
  roleId: 'integer',
  prefix: 'string',
  createdBy: 'string',
  lastUsedFrom: 'string',
} as const satisfies FieldKinds;

export const TokenModel = {
  dto: t.Object({
    ...EntityMeta,
    displayName: t.String(),
    roleId: t.Integer(),
    subsystemIds: t.Array(t.Integer()),
    expiresAt: t.Union([t.String(), t.Null()]),
    prefix: t.String(),
    createdBy: t.Union([t.String(), t.Null()]),
    lastUsedAt: t.Union([t.String(), t.Null()]),
    lastUsedFrom: t.Union([t.String(), t.Null()]),
    token: t.Optional(t.String()),
  }),
  create: t.Object({
    displayName: DisplayName,
    roleId: t.Integer({ minimum: 1 }),
    subsystemIds: t.Optional(IdList),
    expiresAt: t.Optional(NullableInstant),
  }),
  update: t.Object({
    displayName: t.Optional(DisplayName),
    roleId: t.Optional(t.Integer({ minimum: 1 })),
    subsystemIds: t.Optional(IdList),
    expiresAt: t.Optional(NullableInstant),
  }),
};

export type TokenDto = typeof TokenModel.dto.static;
export type TokenCreate = typeof TokenModel.create.static;
export type TokenUpdate = typeof TokenModel.update.static;
