import { t } from 'elysia';
import { iso } from '../clock';
import type { logs } from '../db/schema';
import { EntityMeta, entityMeta } from '../http/entity';

const Time = t.String({ format: 'date-time' });

/** A log entry on the wire (§9): what every module that writes one emits in `log.created`. */
export const LogDtoModel = t.Object({
  ...EntityMeta,
  key: t.String(),
  value: t.String(),
  severity: t.String(),
  category: t.String(),
  createdBy: t.Union([t.String(), t.Null()]),
  createdByType: t.Union([t.String(), t.Null()]),
  tags: t.Array(t.String()),
  subsystemId: t.Union([t.Integer(), t.Null()]),
  subsystemExternalId: t.Union([t.String(), t.Null()]),
  host: t.Union([t.String(), t.Null()]),
  time: Time,
  displayName: t.Union([t.String(), t.Null()]),
  postedBy: t.Union([t.String(), t.Null()]),
});

export type LogDto = typeof LogDtoModel.static;

export type LogRow = typeof logs.$inferSelect;

/** The only row → wire mapping of a log entry. */
export function toLogDto(row: LogRow): LogDto {
  return {
    ...entityMeta(row, 'logs'),
    key: row.key,
    value: row.value,
    severity: row.severity,
    category: row.category,
    createdBy: row.createdBy,
    createdByType: row.createdByType,
    tags: row.tags,
    subsystemId: row.subsystemId,
    subsystemExternalId: row.subsystemExternalId,
    host: row.host,
    time: iso(row.time),
    displayName: row.displayName ?? row.createdBy,
    postedBy: row.postedBy,
  };
}
