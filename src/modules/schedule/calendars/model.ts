import { t } from 'elysia';
import { EntityMeta } from '../../../http/entity';
import { Description, DisplayName } from '../../../http/fields';
import type { FieldKinds } from '../../../http/lists';
import { Color } from '../routes-common';

const LocalDate = t.String({ pattern: '^[0-9]{4}-[0-9]{2}-[0-9]{2}$', error: 'must be a local date YYYY-MM-DD' });

const ClosedDates = t.Array(
  t.Object({ from: LocalDate, to: LocalDate, label: t.Optional(t.String({ maxLength: 200 })) }),
  { maxItems: 500 },
);

const Priority = t.Integer({ minimum: 0, maximum: 100 });

/**
 * The exact-match filters of the calendars list (C: Responses), judged on the wire form, which the list
 * builds whole before it pages. Not filters: `closedDates` (an array).
 */
export const CALENDAR_FIELD_FILTERS = {
  displayName: 'string',
  description: 'string',
  enabled: 'boolean',
  defaultPriority: 'integer',
  color: 'string',
  builtIn: 'boolean',
  itemCount: 'integer',
} as const satisfies FieldKinds;

export const CalendarModel = {
  dto: t.Object({
    ...EntityMeta,
    displayName: t.String(),
    description: t.String(),
    enabled: t.Boolean(),
    defaultPriority: t.Integer(),
    color: t.String(),
    closedDates: t.Array(t.Object({ from: t.String(), to: t.String(), label: t.String() })),
    itemCount: t.Integer(),
    builtIn: t.Boolean(),
  }),
  create: t.Object({
    displayName: DisplayName,
    description: t.Optional(Description),
    enabled: t.Optional(t.BooleanString()),
    defaultPriority: t.Optional(Priority),
    color: t.Optional(Color),
    closedDates: t.Optional(ClosedDates),
  }),
  update: t.Object({
    displayName: t.Optional(DisplayName),
    description: t.Optional(Description),
    enabled: t.Optional(t.BooleanString()),
    defaultPriority: t.Optional(Priority),
    color: t.Optional(Color),
    closedDates: t.Optional(ClosedDates),
  }),
};

export type CalendarDto = typeof CalendarModel.dto.static;
export type CalendarCreate = typeof CalendarModel.create.static;
export type CalendarUpdate = typeof CalendarModel.update.static;
