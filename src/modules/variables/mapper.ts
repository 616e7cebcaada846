import { iso, isoOrNull } from '../../clock';
import { selfLink } from '../../http/links';
import type { VariableDto } from './model';
import type { LoadedVariable } from './repo';
import { healthRulesText } from './rules';

/** `sum(#12, #13)` */
export function compositeDefinitionText(definition: readonly string[]): string {
  const [fn, ...ids] = definition;
  return fn === undefined ? '' : `${fn}(${ids.map((id) => `#${id}`).join(', ')})`;
}

/** The only row → wire mapping of a variable; `now` (epoch ms) gives the remaining grace of a pending state. */
export function toVariableDto(row: LoadedVariable, now: number): VariableDto {
  const self = selfLink('variables', row.id);
  const pending = row.healthPendingState !== null && row.healthPendingSince !== null;
  return {
    _id: row.id,
    _createdAt: iso(row.createdAt),
    _updatedAt: iso(row.updatedAt),
    _links: { self, history: `${self}/history` },
    externalRef: row.externalRef,
    subsystemId: row.subsystemId,
    subsystemExternalId: row.subsystemExternalId,
    displayName: row.displayName,
    userDefinedDisplayName: row.userDefinedDisplayName,
    description: row.description,
    type: row.type,
    lastValue: row.lastValue,
    lastValueUpdatedAt: isoOrNull(row.lastValueUpdatedAt),
    unit: row.unit,
    valueMapping: row.valueMapping,
    tags: row.tags,
    log: row.log,
    storeHistory: row.storeHistory,
    availableInSubsystem: row.availableInSubsystem,
    healthEnabled: row.healthEnabled,
    healthGracePeriod: row.healthGracePeriod,
    healthRules: row.healthRules,
    healthState: row.healthState,
    healthGracePeriodRemaining: pending
      ? Math.max(0, Math.ceil(((row.healthPendingSince ?? now) + row.healthGracePeriod * 1000 - now) / 1000))
      : null,
    healthRulesText: healthRulesText(row.healthRules),
    alert: row.alert,
    composite: row.composite,
    compositeDefinition: row.compositeDefinition,
    compositeDefinitionText: compositeDefinitionText(row.compositeDefinition),
    compositeMetrics: row.compositeDefinition.slice(1).map(Number),
    assetId: row.assetId,
    metricType: row.metricType,
    metricKey1: row.metricKey1,
    metricKey2: row.metricKey2,
    portNumber: row.portNumber,
    ifDesc: row.ifDesc,
    subsystemDisplayName: row.subsystemDisplayName,
    subsystemType: row.subsystemType,
    assetDisplayName: null,
    assetType: null,
    sourceDisplayName: row.subsystemDisplayName,
    platformManaged: row.platformManaged,
  };
}
