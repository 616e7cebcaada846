import { t } from 'elysia';
import { EntityMeta } from '../../http/entity';
import { Description, DisplayName, ExternalId, Metadata } from '../../http/fields';
import { enumFilter, type FieldKinds, fieldFilterQuery, PageQuery } from '../../http/lists';
import { HEALTH_STATUSES } from './state';

const Time = t.Union([t.String({ format: 'date-time' }), t.Null()]);

export const HealthCheckModel = t.Object({
  mode: t.Union([t.Literal('heartbeat'), t.Literal('http'), t.Literal('tcp')]),
  url: t.Optional(t.String({ minLength: 1, maxLength: 2048 })),
  host: t.Optional(t.String({ minLength: 1, maxLength: 253 })),
  port: t.Optional(t.Integer({ minimum: 1, maximum: 65535 })),
  intervalSeconds: t.Optional(t.Integer({ minimum: 5, maximum: 3600 })),
  timeoutSeconds: t.Optional(t.Integer({ minimum: 1, maximum: 60 })),
});

const SubsystemDtoModel = t.Object({
  ...EntityMeta,
  externalId: t.String(),
  displayName: t.String(),
  description: t.String(),
  type: t.String(),
  kind: t.Union([t.Literal('subsystem'), t.Literal('player')]),
  healthEnabled: t.Boolean(),
  healthGracePeriod: t.Integer(),
  healthCheck: HealthCheckModel,
  directMediaPlayback: t.Boolean(),
  metadata: t.Record(t.String(), t.Unknown()),
  status: t.String(),
  isAlive: t.Boolean(),
  lastContactedAt: Time,
  statusChangedAt: Time,
  healthState: t.Integer(),
  healthGracePeriodRemaining: t.Union([t.Integer(), t.Null()]),
  heartbeat: t.Object({
    lastAt: Time,
    remoteAddress: t.Union([t.String(), t.Null()]),
    intervalMs: t.Union([t.Integer(), t.Null()]),
    count: t.Integer(),
  }),
});

/**
 * The exact-match filters of subsystem and player lists besides `type`, `status` and `externalId`
 * (C: Responses), judged on the wire form (so `healthGracePeriod` is the one in force, `isAlive` and
 * `healthState` the live ones), with `metadata[key]=v` (read from the URL). Not filters: the times,
 * `healthGracePeriodRemaining` (a countdown) and the objects (`healthCheck`, `heartbeat`).
 */
export const SUBSYSTEM_FIELD_FILTERS = {
  displayName: 'string',
  description: 'string',
  kind: ['subsystem', 'player'],
  healthEnabled: 'boolean',
  healthGracePeriod: 'integer',
  directMediaPlayback: 'boolean',
  isAlive: 'boolean',
  healthState: 'integer',
} as const satisfies FieldKinds;

export const SubsystemModel = {
  dto: SubsystemDtoModel,
  list: t.Array(SubsystemDtoModel),
  /**
   * One body for create and update: every field optional here (externalId is required on create,
   * checked by the service). Read-only fields and unknown fields are ignored, never an error.
   */
  write: t.Object({
    _id: t.Optional(t.Integer({ minimum: 1 })),
    externalId: t.Optional(ExternalId),
    displayName: t.Optional(DisplayName),
    description: t.Optional(Description),
    type: t.Optional(t.String({ minLength: 1, maxLength: 64 })),
    healthEnabled: t.Optional(t.BooleanString()),
    /** Checked by the service so every wrong value gets the one message the contract fixes. */
    healthGracePeriod: t.Optional(t.Unknown({ description: 'integer seconds, 1–86400' })),
    healthCheck: t.Optional(HealthCheckModel),
    directMediaPlayback: t.Optional(t.BooleanString()),
    metadata: t.Optional(Metadata),
  }),
  listQuery: t.Object({
    ...PageQuery,
    type: t.Optional(t.String()),
    status: enumFilter(HEALTH_STATUSES),
    externalId: t.Optional(t.String()),
    ...fieldFilterQuery(SUBSYSTEM_FIELD_FILTERS),
    fuzzy: t.Optional(t.String()),
    cms: t.Optional(t.Union([t.Literal('true'), t.Literal('false')])),
    includePlayers: t.Optional(t.Union([t.Literal('true'), t.Literal('false')])),
  }),
};

export type SubsystemDto = typeof SubsystemModel.dto.static;
export type SubsystemWrite = typeof SubsystemModel.write.static;
export type SubsystemListQuery = typeof SubsystemModel.listQuery.static;

/** The action types of §3's heartbeat answer table (setParameters is queued by §6, never asked for). */
export const ACTION_TYPES = ['forcePlay', 'forceStop', 'previewPlay', 'previewStop', 'identify'] as const;

const MessageFields = {
  uuid: t.String(),
  type: t.String(),
  createdAt: t.String({ format: 'date-time' }),
  zone: t.Optional(t.String()),
  zoneId: t.Optional(t.Integer()),
  playType: t.Optional(t.String()),
  payload: t.Record(t.String(), t.Unknown()),
};

/** A message as the heartbeat answer carries it (§3 "Heartbeat answer"). */
const DeliveredMessage = t.Object(MessageFields);

/**
 * The exact-match filters of `GET /subsystems/{id}/actions` (C: Responses), on the wire form (the
 * list holds at most 100 messages, built whole). Not filters: `payload` (an object), the times and
 * `subsystemId` (the path names the subsystem).
 */
export const ACTION_FIELD_FILTERS = {
  uuid: 'string',
  type: [...ACTION_TYPES, 'setParameters'],
  zone: 'string',
  zoneId: 'integer',
  playType: ['once', 'infinite'],
  state: ['queued', 'delivered', 'expired'],
} as const satisfies FieldKinds;

export const ActionModel = {
  /** `PUT /subsystems/{id}/action` (§3 "Action request"). */
  request: t.Object({
    type: t.Union(ACTION_TYPES.map((type) => t.Literal(type))),
    playableId: t.Optional(t.Integer({ minimum: 1 })),
    objectId: t.Optional(t.Integer({ minimum: 1 })),
    zoneId: t.Optional(t.Integer({ minimum: 1, maximum: 65535 })),
    playType: t.Optional(t.Union([t.Literal('once'), t.Literal('infinite')])),
    topic: t.Optional(t.String({ maxLength: 256 })),
    controlPanelId: t.Optional(t.Integer({ minimum: 1 })),
  }),
  queued: t.Object({
    uuid: t.String(),
    type: t.String(),
    state: t.Literal('queued'),
    createdAt: t.String({ format: 'date-time' }),
    expiresAt: t.String({ format: 'date-time' }),
    subsystemId: t.Integer(),
    subsystemStatus: t.String(),
  }),
  /** One entry of `GET /subsystems/{id}/actions`. */
  message: t.Object({
    ...MessageFields,
    state: t.Union([t.Literal('queued'), t.Literal('delivered'), t.Literal('expired')]),
    expiresAt: t.String({ format: 'date-time' }),
    deliveredAt: Time,
    subsystemId: t.Integer(),
  }),
  heartbeat: t.Object({
    message: t.Array(DeliveredMessage),
    messages: t.Array(DeliveredMessage),
    queryTime: t.Number(),
  }),
};

export type ActionRequest = typeof ActionModel.request.static;
export type QueuedActionDto = typeof ActionModel.queued.static;
export type ActionMessageDto = typeof ActionModel.message.static;
export type DeliveredMessageDto = typeof DeliveredMessage.static;
export type HeartbeatAnswer = typeof ActionModel.heartbeat.static;
