import { isoOrNull } from '../../clock';
import type { parameters } from '../../db/schema';
import { entityMeta } from '../../http/entity';
import { selfLink } from '../../http/links';
import type { ParameterDto } from './model';

export type ParameterRow = typeof parameters.$inferSelect;

/** The only row → wire mapping of a parameter. */
export function toParameterDto(row: ParameterRow, subsystemExternalId: string): ParameterDto {
  return {
    ...entityMeta(row, 'parameters', {
      subsystem: selfLink('subsystems', row.subsystemId),
      value: `${selfLink('parameters', row.id)}/value`,
    }),
    subsystemId: row.subsystemId,
    subsystemExternalId,
    externalRef: row.externalRef,
    displayName: row.displayName,
    description: row.description,
    type: row.type,
    value: row.value,
    default: row.defaultValue,
    min: row.min,
    max: row.max,
    step: row.step,
    options: row.options,
    unit: row.unit,
    playableId: row.playableId,
    valueUpdatedAt: isoOrNull(row.valueUpdatedAt),
  };
}
