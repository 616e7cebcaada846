import { t } from 'elysia';
import { EntityMeta } from '../../http/entity';
import { DisplayName, IdList, Metadata } from '../../http/fields';
import { type FieldKinds, fieldFilterQuery, PageQuery } from '../../http/lists';
import { ControlPanelModel } from '../control-panels/model';

/** An available control panel as the users' dashboard routes show it. */
export const PanelRef = ControlPanelModel.dto;

/** Booleans come as `true`/`false` or as the strings "true"/"false" (§0.2). */
const BoolInput = t.Union([t.Boolean(), t.Literal('true'), t.Literal('false')], { error: 'must be true or false' });
const BoolQuery = t.String({ pattern: '^(true|false)$', error: 'must be true or false' });
const RoleIds = t.Array(t.Integer({ minimum: 1 }), { minItems: 1, maxItems: 100 });
/** The address rule is checked in the service so the message names it. */
const EmailInput = t.Union([t.String({ maxLength: 254 }), t.Null()], {
  error: 'must be a mail address of at most 254 characters, or null',
});
/** Length and the other password rules are checked in the service, whose messages never echo the value. */
const PasswordInput = t.String({ error: 'must be a string' });

/**
 * The exact-match filters on the other stored scalar fields (C: Responses), beside `username` (which
 * ignores case, as logins do), `enabled` and `roleIds`. Not filters: the times, `preferences` and the
 * arrays.
 */
export const USER_FIELD_FILTERS = {
  displayName: 'string',
  email: 'string',
  templateId: 'integer',
} as const satisfies FieldKinds;

export const UserModel = {
  dto: t.Object({
    ...EntityMeta,
    username: t.String(),
    displayName: t.String(),
    email: t.Union([t.String(), t.Null()]),
    roleIds: t.Array(t.Integer()),
    enabled: t.Boolean(),
    controlpanels: t.Array(t.Integer()),
    templateId: t.Union([t.Integer(), t.Null()]),
    preferences: t.Record(t.String(), t.Unknown()),
    permissions: t.Array(t.String()),
    lastLoginAt: t.Union([t.String(), t.Null()]),
    passwordChangedAt: t.Union([t.String(), t.Null()]),
    availablePanels: t.Optional(t.Array(ControlPanelModel.dto)),
  }),
  create: t.Object({
    username: t.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9._@-]+$' }),
    password: PasswordInput,
    displayName: t.Optional(DisplayName),
    email: t.Optional(EmailInput),
    roleIds: t.Optional(RoleIds),
    enabled: t.Optional(BoolInput),
    controlpanels: t.Optional(IdList),
    templateId: t.Optional(t.Union([t.Integer({ minimum: 1 }), t.Null()], { error: 'must be a template id or null' })),
    preferences: t.Optional(Metadata),
  }),
  /** `username` and `templateId` are write-once and ignored here, like every read-only field. */
  update: t.Object({
    displayName: t.Optional(DisplayName),
    email: t.Optional(EmailInput),
    roleIds: t.Optional(RoleIds),
    enabled: t.Optional(BoolInput),
    controlpanels: t.Optional(IdList),
    preferences: t.Optional(Metadata),
    password: t.Optional(PasswordInput),
  }),
  password: t.Object({ password: PasswordInput }),
  /** `{controlpanels: [ids]}` or the bare array. */
  dashboard: t.Union([IdList, t.Object({ controlpanels: IdList })], {
    error: 'must be an array of panel ids or an object {controlpanels: [ids]}',
  }),
  listQuery: t.Object({
    ...PageQuery,
    username: t.Optional(t.String({ maxLength: 64 })),
    enabled: t.Optional(BoolQuery),
    roleIds: t.Optional(
      t.String({ pattern: '^[0-9]{1,15}(,[0-9]{1,15})*$', error: 'must be role ids separated by commas' }),
    ),
    ...fieldFilterQuery(USER_FIELD_FILTERS),
    fuzzy: t.Optional(t.String({ maxLength: 200 })),
  }),
  getQuery: t.Object({ availablePanels: t.Optional(BoolQuery) }),
  panels: t.Array(ControlPanelModel.dto),
};

export type UserDto = typeof UserModel.dto.static;
export type UserCreate = typeof UserModel.create.static;
export type UserUpdate = typeof UserModel.update.static;
export type UserListQuery = typeof UserModel.listQuery.static;
export type DashboardBody = typeof UserModel.dashboard.static;
