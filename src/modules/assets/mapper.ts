import type { assets } from '../../db/schema';
import { entityMeta } from '../../http/entity';
import { selfLink } from '../../http/links';
import type { AssetDto, AssetHealth, MetricChange, MetricDto } from './model';

export type AssetRow = typeof assets.$inferSelect;

/** The only row → wire mapping of an asset; metrics and health are read beside it (service.ts). */
export function toAssetDto(
  row: AssetRow,
  subsystemExternalId: string | null,
  metrics: MetricDto[],
  healthState: AssetHealth,
  metricsChangeHistory?: MetricChange[],
): AssetDto {
  const links: Record<string, string> = {};
  if (row.parentId !== null) links.parent = selfLink('assets', row.parentId);
  if (row.subsystemId !== null) links.subsystem = selfLink('subsystems', row.subsystemId);
  return {
    ...entityMeta(row, 'assets', links),
    displayName: row.displayName,
    description: row.description,
    tags: row.tags,
    externalRef: row.externalRef,
    subsystemId: row.subsystemId,
    subsystemExternalId,
    type: row.type,
    profileType: row.profileType,
    parentId: row.parentId,
    manufacturer: row.manufacturer,
    model: row.model,
    serialNumber: row.serialNumber,
    firmwareVersion: row.firmwareVersion,
    status: row.status,
    metadata: row.metadata,
    metrics,
    healthState,
    ...(metricsChangeHistory ? { metricsChangeHistory } : {}),
  };
}
