/**
 * A JSON Schema checker for the subset the served OpenAPI document uses (what TypeBox emits once its
 * symbols are stripped and its tuples rewritten as 2020-12, src/http/openapi-schema.ts): type,
 * properties, required, additionalProperties, patternProperties, prefixItems, items (a schema, or false
 * after prefixItems), min/maxItems, min/maxLength, minimum, maximum, const, enum, anyOf, format
 * date-time and local `$ref`s. A keyword it does not know fails the check rather than being skipped,
 * so the sweep can never pass by not looking.
 */
type Schema = Record<string, unknown>;

const KNOWN = new Set([
  'type',
  'properties',
  'required',
  'additionalProperties',
  'patternProperties',
  'prefixItems',
  'items',
  'minItems',
  'maxItems',
  'minLength',
  'maxLength',
  'minimum',
  'maximum',
  'const',
  'enum',
  'anyOf',
  'format',
  '$ref',
  'description',
  'title',
  'default',
  'examples',
]);

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/** ISO-8601 as the wire sends times (C: Responses), or any RFC 3339 date-time. */
const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

function typeOk(type: string, value: unknown): boolean {
  switch (type) {
    case 'object':
      return isObject(value);
    case 'array':
      return Array.isArray(value);
    case 'string':
      return typeof value === 'string';
    case 'integer':
      return Number.isInteger(value);
    case 'number':
      return typeof value === 'number' && Number.isFinite(value);
    case 'boolean':
      return typeof value === 'boolean';
    case 'null':
      return value === null;
    default:
      throw new Error(`json-schema: unknown type ${type}`);
  }
}

export class SchemaChecker {
  constructor(private readonly root: Schema) {}

  /** Every problem of `value` against `schema`, as `<json pointer>: <what>`; empty when it conforms. */
  check(schema: Schema, value: unknown, path = ''): string[] {
    const errors: string[] = [];
    for (const key of Object.keys(schema))
      if (!KNOWN.has(key)) errors.push(`${path}: schema keyword ${key} not understood`);
    if (typeof schema.$ref === 'string') return [...errors, ...this.check(this.resolve(schema.$ref), value, path)];
    if (Array.isArray(schema.anyOf)) {
      const branches = (schema.anyOf as Schema[]).map((s) => this.check(s, value, path));
      if (!branches.some((e) => e.length === 0)) {
        const best = branches.reduce((a, b) => (b.length < a.length ? b : a));
        errors.push(`${path}: matches no anyOf branch (closest: ${best.join('; ')})`);
      }
    }
    if ('const' in schema && value !== schema.const) errors.push(`${path}: is not ${JSON.stringify(schema.const)}`);
    if (Array.isArray(schema.enum) && !schema.enum.includes(value)) errors.push(`${path}: not one of the enum`);
    if (schema.type !== undefined) {
      const types = Array.isArray(schema.type) ? (schema.type as string[]) : [String(schema.type)];
      if (!types.some((ty) => typeOk(ty, value))) return [...errors, `${path}: is not ${types.join(' or ')}`];
    }
    if (typeof value === 'string') errors.push(...this.string(schema, value, path));
    if (typeof value === 'number') errors.push(...this.number(schema, value, path));
    if (Array.isArray(value)) errors.push(...this.array(schema, value, path));
    if (isObject(value)) errors.push(...this.object(schema, value, path));
    return errors;
  }

  private resolve(ref: string): Schema {
    if (!ref.startsWith('#/')) throw new Error(`json-schema: only local refs, got ${ref}`);
    let node: unknown = this.root;
    for (const part of ref.slice(2).split('/')) node = isObject(node) ? node[part] : undefined;
    if (!isObject(node)) throw new Error(`json-schema: ${ref} does not resolve`);
    return node;
  }

  private string(schema: Schema, value: string, path: string): string[] {
    const errors: string[] = [];
    if (typeof schema.minLength === 'number' && value.length < schema.minLength) errors.push(`${path}: too short`);
    if (typeof schema.maxLength === 'number' && value.length > schema.maxLength) errors.push(`${path}: too long`);
    if (schema.format === 'date-time' && !(DATE_TIME.test(value) && !Number.isNaN(Date.parse(value)))) {
      errors.push(`${path}: ${JSON.stringify(value)} is not a date-time`);
    }
    return errors;
  }

  private number(schema: Schema, value: number, path: string): string[] {
    const errors: string[] = [];
    if (typeof schema.minimum === 'number' && value < schema.minimum) errors.push(`${path}: below ${schema.minimum}`);
    if (typeof schema.maximum === 'number' && value > schema.maximum) errors.push(`${path}: above ${schema.maximum}`);
    return errors;
  }

  private array(schema: Schema, value: unknown[], path: string): string[] {
    const errors: string[] = [];
    if (typeof schema.minItems === 'number' && value.length < schema.minItems) errors.push(`${path}: too few items`);
    if (typeof schema.maxItems === 'number' && value.length > schema.maxItems) errors.push(`${path}: too many items`);
    const prefix = Array.isArray(schema.prefixItems) ? schema.prefixItems : [];
    prefix.forEach((s, i) => {
      if (i < value.length && isObject(s)) errors.push(...this.check(s, value[i], `${path}/${i}`));
    });
    const items = schema.items;
    if (items === false && value.length > prefix.length) errors.push(`${path}: extra tuple items`);
    else if (isObject(items)) {
      value.slice(prefix.length).forEach((v, i) => {
        errors.push(...this.check(items, v, `${path}/${prefix.length + i}`));
      });
    }
    return errors;
  }

  private object(schema: Schema, value: Record<string, unknown>, path: string): string[] {
    const errors: string[] = [];
    const props = isObject(schema.properties) ? schema.properties : {};
    for (const key of Array.isArray(schema.required) ? (schema.required as string[]) : []) {
      if (!(key in value)) errors.push(`${path}/${key}: required but missing`);
    }
    const patterns = isObject(schema.patternProperties) ? Object.entries(schema.patternProperties) : [];
    for (const [key, v] of Object.entries(value)) {
      const own = props[key];
      const matching = patterns.filter(([p]) => new RegExp(p).test(key));
      if (isObject(own)) errors.push(...this.check(own, v, `${path}/${key}`));
      for (const [, s] of matching) if (isObject(s)) errors.push(...this.check(s, v, `${path}/${key}`));
      if (isObject(own) || matching.length > 0) continue;
      if (schema.additionalProperties === false) errors.push(`${path}/${key}: not allowed`);
      else if (isObject(schema.additionalProperties)) {
        errors.push(...this.check(schema.additionalProperties, v, `${path}/${key}`));
      }
    }
    return errors;
  }
}
