import { t } from 'elysia';
import { EntityMeta } from '../../http/entity';
import { Description, DisplayName, ExternalRef, Metadata, SubsystemNameFields } from '../../http/fields';
import { type FieldKinds, fieldFilterQuery, PageQuery } from '../../http/lists';

const EventDtoModel = t.Object({
  ...EntityMeta,
  subsystemId: t.Integer(),
  subsystemExternalId: t.String(),
  subsystemDisplayName: t.String(),
  externalRef: t.String(),
  command: t.String(),
  displayName: t.String(),
  description: t.String(),
  active: t.Boolean(),
  availableInSubsystem: t.Boolean(),
  eventPlayer: t.Boolean(),
  metadata: t.Record(t.String(), t.Unknown()),
  lastTriggeredAt: t.Union([t.String({ format: 'date-time' }), t.Null()]),
  scheduledItemCount: t.Integer(),
});

/**
 * The exact-match filters on stored scalar fields besides the subsystem, `externalRef` and `active`
 * (C: Responses), with `metadata[key]=v` (read from the URL). Not filters: `lastTriggeredAt` (a time)
 * and `scheduledItemCount` (counted from the schedule for the page only).
 */
export const EVENT_FIELD_FILTERS = {
  command: 'string',
  displayName: 'string',
  description: 'string',
  availableInSubsystem: 'boolean',
  eventPlayer: 'boolean',
  subsystemDisplayName: 'string',
} as const satisfies FieldKinds;

export const EventModel = {
  dto: EventDtoModel,
  list: t.Array(EventDtoModel),
  /**
   * One body for every write (C: Requests): all optional here; on create one of externalRef or
   * command and one of subsystemId or subsystemExternalId are required (checked by the service).
   * `externalRef` and the subsystem are W1: ignored on update. Read-only and unknown fields are ignored.
   */
  write: t.Object({
    _id: t.Optional(t.Integer({ minimum: 1 })),
    ...SubsystemNameFields,
    externalRef: t.Optional(ExternalRef),
    command: t.Optional(t.String({ minLength: 1, maxLength: 4096 })),
    displayName: t.Optional(DisplayName),
    description: t.Optional(Description),
    active: t.Optional(t.BooleanString()),
    availableInSubsystem: t.Optional(t.BooleanString()),
    eventPlayer: t.Optional(t.BooleanString()),
    metadata: t.Optional(Metadata),
  }),
  listQuery: t.Object({
    ...PageQuery,
    subsystemExternalId: t.Optional(t.String()),
    subsystemId: t.Optional(t.String()),
    externalRef: t.Optional(t.String()),
    active: t.Optional(t.Union([t.Literal('true'), t.Literal('false')])),
    ...fieldFilterQuery(EVENT_FIELD_FILTERS),
    fuzzy: t.Optional(t.String()),
  }),
  trigger: t.Object({
    zoneId: t.Optional(t.Integer({ minimum: 1 })),
  }),
  triggered: t.Object({
    eventId: t.Integer(),
    firedAt: t.String({ format: 'date-time' }),
    deliveredTo: t.Array(t.String()),
  }),
};

/** `{id}` (subsystem `_id` or externalId) and `{ref}` (the event's externalRef). */
export const RefParams = t.Object({
  id: t.String({ minLength: 1, maxLength: 128 }),
  ref: t.String({ minLength: 1, maxLength: 256 }),
});

export type EventDto = typeof EventModel.dto.static;
export type EventWrite = typeof EventModel.write.static;
export type EventListQuery = typeof EventModel.listQuery.static;
