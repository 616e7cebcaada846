import { t } from 'elysia';
import { PERMISSIONS } from '../../core/permissions';
import { EntityMeta } from '../../http/entity';
import { Description, DisplayName } from '../../http/fields';
import type { FieldKinds } from '../../http/lists';

const PermissionName = t.String({ minLength: 1, maxLength: 64 });

/**
 * The exact-match filters of the roles list (C: Responses), judged on the wire form, which the list
 * builds whole before it pages. Not filters: `permissions` (an array).
 */
export const ROLE_FIELD_FILTERS = {
  name: 'string',
  displayName: 'string',
  description: 'string',
  builtIn: 'boolean',
  userCount: 'integer',
  tokenCount: 'integer',
} as const satisfies FieldKinds;

export const RoleModel = {
  dto: t.Object({
    ...EntityMeta,
    name: t.String(),
    displayName: t.String(),
    description: t.String(),
    permissions: t.Array(t.String()),
    builtIn: t.Boolean(),
    userCount: t.Integer(),
    tokenCount: t.Integer(),
  }),
  create: t.Object({
    name: t.String({ minLength: 1, maxLength: 64, pattern: '^[a-z0-9_-]+$' }),
    displayName: t.Optional(DisplayName),
    description: t.Optional(Description),
    permissions: t.Array(PermissionName, { maxItems: PERMISSIONS.length * 2 }),
  }),
  update: t.Object({
    displayName: t.Optional(DisplayName),
    description: t.Optional(Description),
    permissions: t.Optional(t.Array(PermissionName, { maxItems: PERMISSIONS.length * 2 })),
  }),
  permissionList: t.Array(t.String()),
};

export type RoleDto = typeof RoleModel.dto.static;
export type RoleCreate = typeof RoleModel.create.static;
export type RoleUpdate = typeof RoleModel.update.static;
