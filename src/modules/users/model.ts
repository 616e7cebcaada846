import { t } from 'elysia';
import { EntityMeta } from '../../http/entity';

/** An available control panel as the users' dashboard routes show it; the control-panels module fills it. */
export const PanelRef = t.Object({}, { additionalProperties: true });

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
    availablePanels: t.Optional(t.Array(PanelRef)),
  }),
};

export type UserDto = typeof UserModel.dto.static;
