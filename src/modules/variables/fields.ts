/** The row values a write body sets (§4 field table), checked; absent fields are left out. */

import { eq } from 'drizzle-orm';
import { type Principal, requireMayName } from '../../core/principal';
import { assets } from '../../db/schema';
import type { Deps } from '../../deps';
import { invalid } from '../../http/errors';
import { cleanName, tagsOf } from '../../http/fields';
import { compositeDefinitionOf, sameDefinition } from './composite';
import type { VariableWrite } from './model';
import { healthRulesOf } from './rules';
import type { LoadedVariable, VariableRow } from './state';
import { valueText } from './values';

export const PLATFORM_REFS = ['is_alive', 'last_contacted_at'] as const;
const MAX_GRACE_SECONDS = 86400;

/** Fields of a platform-managed variable anyone may change (§4 rule 7). */
const PLATFORM_WRITABLE = new Set(['displayName', 'tags', 'log', 'alert']);

/** Fields whose change the `variable.updated` event names. */
export const WRITABLE_FIELDS = [
  'displayName',
  'description',
  'type',
  'unit',
  'valueMapping',
  'tags',
  'log',
  'storeHistory',
  'availableInSubsystem',
  'healthEnabled',
  'healthGracePeriod',
  'healthRules',
  'alert',
  'composite',
  'compositeDefinition',
  'assetId',
  'metricType',
  'metricKey1',
  'metricKey2',
  'portNumber',
  'ifDesc',
] as const;

export type VariableValues = Partial<Pick<VariableRow, (typeof WRITABLE_FIELDS)[number] | 'userDefinedDisplayName'>>;

/** A person: a signed-in user, or any caller without the integration role. */
export function isPerson(principal: Principal): boolean {
  return principal.userId !== null || !principal.integration;
}

/** `healthGracePeriod`: integer seconds > 0 (digits as text too); `0` with `healthEnabled:false` is absent. */
function gracePeriodOf(body: VariableWrite): number | undefined {
  const value = body.healthGracePeriod;
  if (value === undefined) return undefined;
  if ((value === 0 || value === '0') && body.healthEnabled === false) return undefined;
  const n = typeof value === 'string' && /^[0-9]{1,9}$/.test(value) ? Number(value) : value;
  if (typeof n !== 'number' || !Number.isInteger(n) || n <= 0)
    throw invalid('/healthGracePeriod', 'must be greater than 0');
  if (n > MAX_GRACE_SECONDS) throw invalid('/healthGracePeriod', `must be at most ${MAX_GRACE_SECONDS}`);
  return n;
}

export interface WriteValues {
  values: VariableValues;
  /** The value write the body carries (`lastValue`). */
  lastValue?: string;
}

/** The asset with this `_id` (§4 `assetId`, §16): its owning subsystem; undefined when none. */
function assetOwner(deps: Deps, id: number): { subsystemId: number | null } | undefined {
  return deps.db.select({ subsystemId: assets.subsystemId }).from(assets).where(eq(assets.id, id)).get();
}

/**
 * What a body changes on `current` (undefined on create). A platform-managed variable takes only its
 * displayName, tags, log and alert; an integration's displayName gives way to a person's.
 */
export function valuesOf(
  deps: Deps,
  body: VariableWrite,
  current: LoadedVariable | undefined,
  principal: Principal,
): WriteValues {
  const v: VariableValues = {};
  if (body.displayName !== undefined) {
    const person = isPerson(principal);
    if (person || !current?.userDefinedDisplayName) v.displayName = cleanName(body.displayName);
    if (person) v.userDefinedDisplayName = true;
  }
  if (body.tags !== undefined) v.tags = tagsOf(body.tags, '/tags');
  if (body.log !== undefined) v.log = body.log;
  if (body.alert !== undefined) v.alert = body.alert;
  if (current?.platformManaged) {
    for (const key of Object.keys(v))
      if (!PLATFORM_WRITABLE.has(key) && key !== 'userDefinedDisplayName') delete v[key as keyof VariableValues];
    return { values: v };
  }
  if (body.description !== undefined) v.description = body.description;
  if (body.type !== undefined) v.type = body.type;
  if (body.unit !== undefined) v.unit = body.unit;
  if (body.valueMapping !== undefined) v.valueMapping = body.valueMapping;
  const storeHistory = body.storeHistory ?? body.store_history;
  if (storeHistory !== undefined) v.storeHistory = storeHistory;
  if (body.availableInSubsystem !== undefined) v.availableInSubsystem = body.availableInSubsystem;
  if (body.healthEnabled !== undefined) v.healthEnabled = body.healthEnabled;
  const grace = gracePeriodOf(body);
  if (grace !== undefined) v.healthGracePeriod = grace;
  if (body.healthRules !== undefined) v.healthRules = healthRulesOf(body.healthRules);
  if (body.composite !== undefined) v.composite = body.composite;
  // What is stored is taken back as it is: a composite whose inputs were all deleted reads
  // `["sum"]`, which a new definition may not be, and its GET-then-PUT was refused 400.
  if (body.compositeDefinition !== undefined && !sameDefinition(body.compositeDefinition, current?.compositeDefinition))
    v.compositeDefinition = compositeDefinitionOf(deps, body.compositeDefinition, current?.id ?? null);
  if ((v.composite ?? current?.composite) && (v.compositeDefinition ?? current?.compositeDefinition ?? []).length === 0)
    throw invalid('/compositeDefinition', 'is required for a composite variable');
  if (body.assetId !== undefined) {
    if (body.assetId !== null) {
      const owner = assetOwner(deps, body.assetId);
      if (!owner) throw invalid('/assetId', 'names no asset');
      // A metric changes its asset's health and history: a limited token attaches only to assets it may name.
      if (body.assetId !== current?.assetId) requireMayName(principal, owner.subsystemId, 'assetId');
    }
    v.assetId = body.assetId;
  }
  if (body.metricType !== undefined) v.metricType = body.metricType;
  if (body.metricKey1 !== undefined) v.metricKey1 = body.metricKey1;
  if (body.metricKey2 !== undefined) v.metricKey2 = body.metricKey2;
  if (body.portNumber !== undefined) v.portNumber = body.portNumber;
  if (body.ifDesc !== undefined) v.ifDesc = body.ifDesc;
  const result: WriteValues = { values: v };
  if (body.lastValue !== undefined) result.lastValue = valueText(body.lastValue, '/lastValue');
  return result;
}
