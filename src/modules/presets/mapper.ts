import { isoOrNull } from '../../clock';
import type { presets } from '../../db/schema';
import { entityMeta } from '../../http/entity';
import { selfLink } from '../../http/links';
import type { PresetDto, PresetEntryDto } from './model';

export type PresetRow = typeof presets.$inferSelect;

/** The only row → wire mapping of a preset; `entries` in stored order. */
export function toPresetDto(row: PresetRow, subsystemExternalId: string, entries: PresetEntryDto[]): PresetDto {
  return {
    ...entityMeta(row, 'presets', {
      subsystem: selfLink('subsystems', row.subsystemId),
      apply: `${selfLink('presets', row.id)}/apply`,
    }),
    subsystemId: row.subsystemId,
    subsystemExternalId,
    externalRef: row.externalRef,
    displayName: row.displayName,
    description: row.description,
    parameters: entries,
    lastAppliedAt: isoOrNull(row.lastAppliedAt),
  };
}
