import { t } from 'elysia';
import { EntityMeta } from '../../../http/entity';
import { Description, NullableDisplayName } from '../../../http/fields';
import { type FieldKinds, fieldFilterQuery, PageQuery } from '../../../http/lists';

const ItemType = t.Union([t.Literal('EVENT'), t.Literal('PLAYABLE'), t.Literal('PLAYLIST'), t.Literal('BLOCK')]);
/** Parsed by the service, which reports a bad time at its own field. */
const TimeText = t.String({ minLength: 1, maxLength: 64 });
const LocalDate = t.String({ minLength: 1, maxLength: 32 });

/**
 * Loosely typed: the rules (and their messages at `/recurrence/<field>`) are the engine's
 * validateRecurrence. §11.2 writes `byDay` as "`MO`…`SU`" and `byMonthDay` as "1–31 or -1", so one
 * value is taken as well as a list: `"byMonthDay": -1`, `"byDay": "MO"` or `"MO,WE,FR"` (as `tags`
 * takes a comma-separated string); answers always carry the list.
 */
const Recurrence = t.Object({
  freq: t.String({ maxLength: 16 }),
  interval: t.Optional(t.Union([t.Number(), t.Null()])),
  byDay: t.Optional(
    t.Union([t.Array(t.String({ maxLength: 8 }), { maxItems: 35 }), t.String({ maxLength: 320 }), t.Null()]),
  ),
  byMonthDay: t.Optional(t.Union([t.Array(t.Number(), { maxItems: 32 }), t.Number(), t.Null()])),
  until: t.Optional(t.Union([LocalDate, t.Null()])),
  count: t.Optional(t.Union([t.Number(), t.Null()])),
});

const Priority = t.Integer({ minimum: 0, maximum: 100 });

/** The writable fields (§11.2); on create `itemType` and `itemId` are required (checked by the service). */
const writable = {
  calendarId: t.Optional(t.Integer({ minimum: 1 })),
  itemType: t.Optional(ItemType),
  itemId: t.Optional(t.Integer({ minimum: 1 })),
  zoneId: t.Optional(t.Integer({ minimum: 1 })),
  displayName: t.Optional(NullableDisplayName),
  description: t.Optional(t.Union([Description, t.Null()])),
  startTime: t.Optional(TimeText),
  startTimeLocal: t.Optional(TimeText),
  endTime: t.Optional(t.Union([TimeText, t.Null()])),
  endTimeLocal: t.Optional(t.Union([TimeText, t.Null()])),
  recurrence: t.Optional(t.Union([Recurrence, t.Null()])),
  exclusions: t.Optional(t.Array(LocalDate, { maxItems: 1000 })),
  priority: t.Optional(Priority),
  enabled: t.Optional(t.BooleanString()),
  catchUp: t.Optional(t.BooleanString()),
};

const OccurrenceTimes = t.Object({
  startTime: t.String(),
  endTime: t.String(),
  startTimeLocal: t.String(),
  endTimeLocal: t.String(),
});

/**
 * The exact-match filters on the other stored scalar fields of a definition (C: Responses), in SQL.
 * Not filters: `displayName` and `description` (the target's when the item has none), the target's
 * fields (`subsystemId`, `subsystemExternalId`, `externalRef`, `command`, `targetMissing`),
 * `duration` and `nextOccurrence` (worked out from the schedule for the page only), the times.
 */
export const ITEM_FIELD_FILTERS = {
  priority: 'integer',
  catchUp: 'boolean',
  parentId: 'integer',
} as const satisfies FieldKinds;

export const ItemModel = {
  dto: t.Object({
    ...EntityMeta,
    calendarId: t.Integer(),
    itemType: t.String(),
    itemId: t.Integer(),
    zoneId: t.Integer(),
    displayName: t.String(),
    description: t.String(),
    startTime: t.String(),
    endTime: t.String(),
    startTimeLocal: t.String(),
    endTimeLocal: t.String(),
    startTimeUnix: t.Integer(),
    endTimeUnix: t.Integer(),
    duration: t.Integer(),
    recurrence: t.Union([
      t.Object({
        freq: t.String(),
        interval: t.Integer(),
        byDay: t.Union([t.Array(t.String()), t.Null()]),
        byMonthDay: t.Union([t.Array(t.Integer()), t.Null()]),
        until: t.Union([t.String(), t.Null()]),
        count: t.Union([t.Integer(), t.Null()]),
      }),
      t.Null(),
    ]),
    exclusions: t.Array(t.String()),
    priority: t.Integer(),
    enabled: t.Boolean(),
    catchUp: t.Boolean(),
    subsystemId: t.Union([t.Integer(), t.Null()]),
    subsystemExternalId: t.Union([t.String(), t.Null()]),
    externalRef: t.Union([t.String(), t.Null()]),
    command: t.Union([t.String(), t.Null()]),
    targetMissing: t.Boolean(),
    parentId: t.Union([t.Integer(), t.Null()]),
    nextOccurrence: t.Union([OccurrenceTimes, t.Null()]),
  }),
  write: t.Object(writable),
  /** The body of the collection upserts: a fetched item's `_id` names the item it updates. */
  upsert: t.Object({ _id: t.Optional(t.Integer({ minimum: 1 })), ...writable }),
  detach: t.Object({ date: LocalDate, ...writable }),
  listQuery: t.Object({
    calendarId: t.Optional(t.String({ pattern: '^[0-9]{1,15}$', error: 'must be a calendar _id' })),
    itemType: t.Optional(ItemType),
    itemId: t.Optional(t.String({ pattern: '^[0-9]{1,15}$', error: 'must be an _id' })),
    zoneId: t.Optional(t.String({ pattern: '^[0-9]{1,15}$', error: 'must be a zone _id' })),
    enabled: t.Optional(t.String({ pattern: '^(true|false)$', error: 'must be true or false' })),
    ...fieldFilterQuery(ITEM_FIELD_FILTERS),
    ...PageQuery,
  }),
};

export type ItemDto = typeof ItemModel.dto.static;
export type ItemWrite = typeof ItemModel.write.static;
export type ItemUpsert = typeof ItemModel.upsert.static;
export type ItemDetach = typeof ItemModel.detach.static;
export type ItemListQuery = typeof ItemModel.listQuery.static;
