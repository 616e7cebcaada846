import type { scheduleZones } from '../../../db/schema';
import { entityMeta } from '../../../http/entity';
import type { ZoneDto } from './model';

export type ZoneRow = typeof scheduleZones.$inferSelect;

/** The only row → wire mapping of a zone; zone 1 is built in. */
export function toZoneDto(row: ZoneRow): ZoneDto {
  return {
    ...entityMeta(row, 'zones'),
    displayName: row.displayName,
    description: row.description,
    members: row.members,
    color: row.color,
    builtIn: row.id === 1,
  };
}
