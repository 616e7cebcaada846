import { iso } from '../../clock';
import type { logs } from '../../db/schema';
import { entityMeta } from '../../http/entity';
import type { LogDto } from './model';

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
