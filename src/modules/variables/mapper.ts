import { iso, isoOrNull } from '../../clock';
import { selfLink } from '../../http/links';
import { type VariableDto, VariableModel } from './model';
import { healthRulesText } from './rules';
import type { LoadedVariable } from './state';

/** `sum(#12, #13)` */
export function compositeDefinitionText(definition: readonly string[]): string {
  const [fn, ...ids] = definition;
  return fn === undefined ? '' : `${fn}(${ids.map((id) => `#${id}`).join(', ')})`;
}

/** Fields that can differ between two answers about the same stored configuration. */
function dynamicFields(row: LoadedVariable, now: number) {
  const pending = row.healthPendingState !== null && row.healthPendingSince !== null;
  return {
    _id: row.id,
    _updatedAt: iso(row.updatedAt),
    lastValue: row.lastValue,
    lastValueUpdatedAt: isoOrNull(row.lastValueUpdatedAt),
    healthState: row.healthState,
    healthGracePeriodRemaining: pending
      ? Math.max(0, Math.ceil(((row.healthPendingSince ?? now) + row.healthGracePeriod * 1000 - now) / 1000))
      : null,
    subsystemExternalId: row.subsystemExternalId,
    subsystemDisplayName: row.subsystemDisplayName,
    subsystemType: row.subsystemType,
    sourceDisplayName: row.assetDisplayName ?? row.subsystemDisplayName,
  };
}

/**
 * Fields that change only with the variable's configuration or its asset's displayName and type (a
 * row read fresh after every such change).
 */
function staticFields(row: LoadedVariable) {
  const self = selfLink('variables', row.id);
  return {
    _createdAt: iso(row.createdAt),
    _links: { self, history: `${self}/history` },
    externalRef: row.externalRef,
    subsystemId: row.subsystemId,
    displayName: row.displayName,
    userDefinedDisplayName: row.userDefinedDisplayName,
    description: row.description,
    type: row.type,
    unit: row.unit,
    valueMapping: row.valueMapping,
    tags: row.tags,
    log: row.log,
    storeHistory: row.storeHistory,
    availableInSubsystem: row.availableInSubsystem,
    healthEnabled: row.healthEnabled,
    healthGracePeriod: row.healthGracePeriod,
    healthRules: row.healthRules,
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
    assetDisplayName: row.assetDisplayName,
    assetType: row.assetType,
    platformManaged: row.platformManaged,
  };
}

/** The only row → wire mapping of a variable; `now` (epoch ms) gives the remaining grace of a pending state. */
export function toVariableDto(row: LoadedVariable, now: number): VariableDto {
  return { ...dynamicFields(row, now), ...staticFields(row) };
}

const STATIC_JSON = Symbol('static JSON of a variable answer');

/**
 * The same answer as JSON text, for the ingest path: the configuration part is serialised once and
 * kept on the row object, which value writes update in place (values.ts `applyValue`) and every
 * configuration change replaces with a row read fresh from the database.
 */
export function variableJson(row: LoadedVariable, now: number): string {
  const holder = row as LoadedVariable & { [STATIC_JSON]?: string };
  let fixed = holder[STATIC_JSON];
  if (fixed === undefined) {
    fixed = JSON.stringify(staticFields(row)).slice(1, -1);
    holder[STATIC_JSON] = fixed;
  }
  return `${JSON.stringify(dynamicFields(row, now)).slice(0, -1)},${fixed}}`;
}

/** The answer's keys in the order of its response schema. */
const DTO_KEYS = Object.keys(VariableModel.dto.properties) as Array<keyof VariableDto>;

type Dynamic = ReturnType<typeof dynamicFields>;
/** A schema-ordered answer: runs of configuration fields as JSON text, and the changing fields by name. */
type Template = Array<string | { key: keyof Dynamic; prefix: string }>;

const REF_TEMPLATE = Symbol('schema-ordered template of a variable answer');

/** `"key":value` of each configuration field, adjacent ones joined; the changing fields' names between. */
function templateOf(row: LoadedVariable, dynamic: Dynamic): Template {
  const fixed: Record<string, unknown> = staticFields(row);
  const template: Template = [];
  let run: string[] = [];
  for (const key of DTO_KEYS) {
    // The configuration wins a name both hold, as in toVariableDto's spread.
    if (Object.hasOwn(fixed, key)) {
      if (fixed[key] !== undefined) run.push(`${JSON.stringify(key)}:${JSON.stringify(fixed[key])}`);
    } else if (Object.hasOwn(dynamic, key)) {
      if (run.length > 0) template.push(run.join(','));
      run = [];
      template.push({ key: key as keyof Dynamic, prefix: `${JSON.stringify(key)}:` });
    }
  }
  if (run.length > 0) template.push(run.join(','));
  return template;
}

/**
 * `variableDtoJson(toVariableDto(row, now))`, the answer of a value write by reference, built from a
 * template kept on the row object as `variableJson` keeps its configuration part (value writes update
 * the row in place, every configuration change replaces it): only the changing fields are serialised per
 * write: 2.4 µs against 4.6 for building the whole answer and copying it in schema order, which was
 * 16 % of the door's profile (bench/RESULTS.md, "Hot paths, session 11").
 */
export function variableRefJson(row: LoadedVariable, now: number): string {
  const holder = row as LoadedVariable & { [REF_TEMPLATE]?: Template };
  const dynamic = dynamicFields(row, now);
  let template = holder[REF_TEMPLATE];
  if (template === undefined) {
    template = templateOf(row, dynamic);
    holder[REF_TEMPLATE] = template;
  }
  // Concatenated, not pushed and joined: 1.0-1.8 µs against 1.7-2.9 in a loop (bench/RESULTS.md, "Hot paths, session 12").
  let json = '{';
  let comma = '';
  for (const part of template) {
    if (typeof part === 'string') {
      json += comma + part;
      comma = ',';
    } else {
      const value = dynamic[part.key];
      if (value === undefined) continue;
      json += `${comma}${part.prefix}${scalarJson(value)}`;
      comma = ',';
    }
  }
  return `${json}}`;
}

/** JSON.stringify of a changing field (text, number or null), without its call for the common kinds. */
function scalarJson(value: string | number | null): string {
  if (value === null) return 'null';
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : 'null';
  return JSON.stringify(value);
}

/**
 * A variable answer as the routes write it: Elysia's response check copies the answer in its
 * schema's key order, and the value writes by reference have always answered so (their door,
 * ingest.ts, keeps their bytes). The value write by `_id` answers `variableJson`'s order, as it has
 * since it had its door: the same fields, another order.
 */
export function variableDtoJson(dto: VariableDto): string {
  const ordered: Partial<Record<keyof VariableDto, unknown>> = {};
  for (const key of DTO_KEYS) if (dto[key] !== undefined) ordered[key] = dto[key];
  return JSON.stringify(ordered);
}
