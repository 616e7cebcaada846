import { t } from 'elysia';
import { EntityMeta } from '../../http/entity';
import { Description, NullableDisplayName, NullableExternalRef, SubsystemNameFields } from '../../http/fields';
import { type FieldKinds, fieldFilterQuery, PageQuery } from '../../http/lists';

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

const PanelSize = t.Union([t.Integer({ minimum: 1, maximum: 10000 }), t.Null()], {
  error: 'must be an integer from 1 to 10000',
});

export const PanelLocation = t.Union([t.Literal('registered'), t.Literal('available')]);
export type PanelLocationName = typeof PanelLocation.static;

/**
 * One body for every write (C: Requests): all fields optional here; what each kind requires, and
 * which fields each kind ignores, is decided by the service. Unknown and read-only fields are ignored.
 */
export const ControlPanelWriteModel = t.Object({
  _id: t.Optional(t.Integer({ minimum: 1 })),
  location: t.Optional(PanelLocation),
  ...SubsystemNameFields,
  externalRef: t.Optional(NullableExternalRef),
  displayName: t.Optional(NullableDisplayName),
  description: t.Optional(Description),
  type: t.Optional(t.String({ minLength: 1, maxLength: 64 })),
  connection: t.Optional(t.Record(t.String(), t.Unknown())),
  active: t.Optional(t.BooleanString()),
  registeredPanelId: t.Optional(t.Union([t.Integer({ minimum: 1 }), t.Null()], { error: 'must be a panel _id' })),
  roles: t.Optional(t.Array(t.Integer(), { maxItems: 1000 })),
  scale: t.Optional(
    t.Object({
      enabled: t.Optional(t.BooleanString()),
      width: t.Optional(PanelSize),
      height: t.Optional(PanelSize),
    }),
  ),
  openExternally: t.Optional(t.BooleanString()),
});

export type ControlPanelWrite = typeof ControlPanelWriteModel.static;

/** `?location=` (alias `?type=`): the kind a request is about. */
export const LocationQuery = {
  location: t.Optional(PanelLocation),
  type: t.Optional(PanelLocation),
};

/**
 * The exact-match filters on the other scalar fields of the wire form (C: Responses), which the list
 * builds whole before it pages. Not filters: the objects and arrays (`connection`, `roles`, `scale`).
 */
export const CONTROL_PANEL_FIELD_FILTERS = {
  subsystemId: 'integer',
  displayName: 'string',
  description: 'string',
  openExternally: 'boolean',
  displayNameRegisteredPanel: 'string',
} as const satisfies FieldKinds;

export const ControlPanelListQuery = t.Object({
  ...PageQuery,
  ...LocationQuery,
  subsystemExternalId: t.Optional(t.String()),
  externalRef: t.Optional(t.String()),
  registeredPanelId: t.Optional(t.String({ pattern: '^[0-9]{1,15}$', error: 'must be a panel _id' })),
  active: t.Optional(t.Union([t.Literal('true'), t.Literal('false')])),
  ...fieldFilterQuery(CONTROL_PANEL_FIELD_FILTERS),
  fuzzy: t.Optional(t.String()),
});

export type ControlPanelListFilter = typeof ControlPanelListQuery.static;
