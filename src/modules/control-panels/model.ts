import { t } from 'elysia';
import { EntityMeta } from '../../http/entity';

export const PanelScaleModel = t.Object({
  enabled: t.Boolean(),
  width: t.Optional(t.Integer({ minimum: 1, maximum: 10000 })),
  height: t.Optional(t.Integer({ minimum: 1, maximum: 10000 })),
});

export const ControlPanelModel = {
  dto: t.Object({
    ...EntityMeta,
    location: t.Union([t.Literal('registered'), t.Literal('available')]),
    subsystemId: t.Integer(),
    subsystemExternalId: t.String(),
    externalRef: t.Union([t.String(), t.Null()]),
    displayName: t.String(),
    description: t.String(),
    type: t.String(),
    connection: t.Record(t.String(), t.Unknown()),
    active: t.Boolean(),
    registeredPanelId: t.Union([t.Integer(), t.Null()]),
    roles: t.Array(t.Integer()),
    scale: PanelScaleModel,
    openExternally: t.Boolean(),
    displayNameRegisteredPanel: t.Optional(t.String()),
  }),
};

export type ControlPanelDto = typeof ControlPanelModel.dto.static;
