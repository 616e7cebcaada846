/**
 * The one JSON body reader (C: Requests): `application/json` with any parameters, `+json` types, and
 * bodies without a content type that parse as JSON; an empty body reads as `{}`. Leniency beyond the
 * contract: a body that parses as JSON is taken whatever its label (curl's default form type); one
 * that does not is 415 when labelled as something else, 400 when labelled JSON. Size is checked on
 * Content-Length before reading and again while streaming, so a large body costs nothing.
 *
 * Decisions:
 * - A body nested more than MAX_NESTING (64) levels deep is refused before anything recursive reads it.
 * - An integer literal past ±(2^53−1) is refused (400 `validation` at its JSON pointer) rather than
 *   stored rounded; see json-integers.ts for the rule and its cost on the ingest path.
 * - A body whose bytes are not well-formed UTF-8 is refused (400 `bad_request`, `detail` at the JSON
 *   pointer of the string holding the first broken sequence) rather than stored with U+FFFD; see utf8.ts.
 * - A string or key holding an unpaired surrogate escape (`\ud800`) is refused (400 `validation` at
 *   its JSON pointer) rather than stored as U+FFFD; see lone-surrogates.ts.
 * - Each route checks the body as sent against its own schema before Elysia touches it (`routeBody`).
 *   Elysia 1.4 prepares a body before validating it: it merges it into the schema's defaults with
 *   `Object.assign` (a string, number, array or null whole body becomes `{}` or `{"0":…}`), then
 *   rebuilds it along the schema with exact-mirror (`normalize`), which reads a record's keys and an
 *   object's properties without looking at the type, so `"metadata": "str"` became
 *   `{"0":"s","1":"t","2":"r"}` and `"scale": "str"` became `{}`; both then pass. Checking first
 *   refuses them with the same error body Elysia's own check writes. Elysia's `normalize: 'typebox'`
 *   would not mangle fields, but it also cleans every response dynamically (a 5000-item list answered
 *   four times slower) and still merges whole bodies into defaults.
 * - A route without a body schema takes an object or nothing; so does every route whose schema is an
 *   object. Only a schema that says otherwise (a bare array of panel ids) lets another shape through.
 * - The check gives every integer field bounds of ±(2^53−1) when it has none, and its text form
 *   (Elysia takes `"42"` for an integer) the same limit, so `1e20` is not an integer id or count.
 *   The text form also keeps the field's own bounds: `"duration": "-1"` is refused here, at its path,
 *   like `-1`. (Elysia checks the number only while decoding, after this check, and its error names
 *   no field: such a body got 400 `bad_request` "a query or path value is not valid" without `detail`.)
 */
import { FormatRegistry, Kind, type TSchema } from '@sinclair/typebox';
import { TypeCompiler } from '@sinclair/typebox/compiler';
import { AppError, fieldName, invalid } from './errors';
import { stringEnd, unsafeIntegerPath } from './json-integers';
import { LONE_SURROGATE, loneSurrogatePath } from './lone-surrogates';
import { dropProtoKeys } from './proto-keys';
import { notUtf8, utf8OrNull } from './utf8';
import {
  SAFE_INTEGER_BOUND,
  SAFE_INTEGER_FORMAT,
  type SchemaError,
  schemaErrorDetails,
  UNSAFE_INTEGER,
} from './validation';

function isJsonType(contentType: string): boolean {
  const type = (contentType.split(';')[0] ?? '').trim().toLowerCase();
  return type === '' || type === 'application/json' || type === 'text/json' || type.endsWith('+json');
}

export const tooLarge = (limit: number): AppError =>
  new AppError('payload_too_large', `the body is larger than ${limit} bytes`);

/** The answer to a body that is not a JSON object where one is required: the same on every route. */
export const notAnObject = (): AppError =>
  new AppError('validation', 'body must be an object', [{ path: '/', message: 'must be an object' }]);

const notJson = (): AppError => new AppError('unsupported_media_type', 'the body must be JSON (application/json)');

const isObject = (body: unknown): boolean => body !== null && typeof body === 'object' && !Array.isArray(body);

/** Reads the body's bytes, refusing more than `limit`. */
async function readBodyBytes(request: Request, limit: number): Promise<Uint8Array> {
  const declared = Number(request.headers.get('content-length') ?? Number.NaN);
  if (Number.isFinite(declared) && declared > limit) throw tooLarge(limit);
  // A declared length within the limit is enforced by the HTTP framing, so the body can be taken
  // whole; streaming chunk by chunk costs far more per request on the ingest path. Asked first:
  // `request.body` makes a ReadableStream, about 1.8 µs of the value door's 15 (bench/RESULTS.md).
  if (Number.isFinite(declared)) return request.bytes();
  if (!request.body) return new Uint8Array(0);
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of request.body) {
    size += chunk.byteLength;
    if (size > limit) throw tooLarge(limit);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

/** Reads the body as text, refusing more than `limit` bytes and bytes that are not UTF-8 (utf8.ts). */
export async function readBodyText(request: Request, limit: number): Promise<string> {
  const bytes = await readBodyBytes(request, limit);
  const text = utf8OrNull(bytes);
  if (text === null) throw notUtf8(bytes);
  return text;
}

/**
 * Discards a body a route ignores, unread. Only when the framing says one was sent (a length other
 * than 0, or chunked): asking for `request.body` makes a stream, a cost on every heartbeat.
 */
export async function discardBody(request: Request): Promise<void> {
  const length = request.headers.get('content-length');
  if ((length !== null && length !== '0') || request.headers.has('transfer-encoding')) await request.body?.cancel();
}

export async function readJsonBody(request: Request, limit: number): Promise<unknown> {
  const contentType = request.headers.get('content-type') ?? '';
  const bytes = await readBodyBytes(request, limit);
  const text = utf8OrNull(bytes);
  if (text === null) {
    // Bytes that are not text and not labelled JSON (an image posted to a JSON route) are the wrong
    // media type, as a body that does not parse is below.
    if (!isJsonType(contentType)) throw notJson();
    throw notUtf8(bytes);
  }
  if (text.trim() === '') return {};
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    // A JSON body sent with another type (curl -d, some field clients) is accepted above; a body
    // that is neither labelled nor shaped as JSON is the wrong media type.
    if (!isJsonType(contentType)) throw notJson();
    throw new AppError('bad_request', 'the body is not valid JSON');
  }
  if (text.length > 2 * MAX_NESTING && nestedDeeperThan(text, MAX_NESTING)) throw tooDeep();
  const unsafe = unsafeIntegerPath(text);
  if (unsafe) throw invalid(unsafe, UNSAFE_INTEGER);
  const lone = loneSurrogatePath(body, text);
  if (lone) throw invalid(lone, LONE_SURROGATE);
  return dropProtoKeys(body, text);
}

/**
 * No body of this API nests more than a few levels (metadata at most 5, §0.2). A body nested
 * thousands deep is refused before any recursive code (schema checks, metadata rules, cleaning)
 * can overflow the stack on it: 64 levels, judged on the text; a body of 128 characters or fewer
 * cannot be that deep, so the ingest path's short bodies skip the scan.
 */
export const MAX_NESTING = 64;

const tooDeep = (): AppError =>
  new AppError('validation', `body is nested more than ${MAX_NESTING} levels deep`, [
    { path: '/', message: `must be nested at most ${MAX_NESTING} levels deep` },
  ]);

/** Whether JSON `text` (already parsed) opens more than `max` arrays or objects inside one another. */
function nestedDeeperThan(text: string, max: number): boolean {
  let depth = 0;
  let i = 0;
  while (i < text.length) {
    const c = text.charCodeAt(i);
    if (c === 34) {
      i = stringEnd(text, i);
      continue;
    }
    if (c === 123 || c === 91) {
      if (++depth > max) return true;
    } else if (c === 125 || c === 93) depth--;
    i += 1;
  }
  return false;
}

/**
 * The text of an integer: decimal digits, a minus sign, and a fraction of zeros (`"1.0"`, as the number
 * `1.0` is taken). `Number()` alone also read `"0x10"`, `"0b1"`, `"1e1"`, `" 1"` and `"1."` as integers:
 * a device address sent as `"0x10"` became 16 without a word.
 */
const INTEGER_TEXT = /^-?[0-9]+(\.0+)?$/;

// Elysia's integer-as-text format with the exactness limit of a JSON number added.
if (!FormatRegistry.Has(SAFE_INTEGER_FORMAT)) {
  FormatRegistry.Set(SAFE_INTEGER_FORMAT, (text) => INTEGER_TEXT.test(text) && Number.isSafeInteger(Number(text)));
}

type Node = Record<string | symbol, unknown>;

const boundOf = (value: unknown): number | null => (typeof value === 'number' ? value : null);

/**
 * The text form of an integer field with the field's own bounds (its `Integer` branch, bounds
 * already made safe): a format per set of bounds, registered once, that also requires an exact integer.
 */
function boundedIntegerFormat(integer: Node): string {
  const min = boundOf(integer.minimum);
  const xmin = boundOf(integer.exclusiveMinimum);
  const max = boundOf(integer.maximum);
  const xmax = boundOf(integer.exclusiveMaximum);
  const name = `${SAFE_INTEGER_FORMAT}:${[min, xmin, max, xmax].join(':')}`;
  if (!FormatRegistry.Has(name)) {
    FormatRegistry.Set(name, (text) => {
      const n = Number(text);
      if (!INTEGER_TEXT.test(text) || !Number.isSafeInteger(n)) return false;
      return (
        (min === null || n >= min) &&
        (xmin === null || n > xmin) &&
        (max === null || n <= max) &&
        (xmax === null || n < xmax)
      );
    });
  }
  return name;
}

/** A copy of `node` (any part of a schema) with the integer limits above added; functions are shared. */
function withSafeIntegers(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(withSafeIntegers);
  if (node === null || typeof node !== 'object') return node;
  const source = node as Node;
  const copy: Node = {};
  for (const key of Reflect.ownKeys(source)) copy[key] = withSafeIntegers(source[key]);
  if (copy[Kind] === 'Integer') {
    const hasMax = copy.maximum !== undefined || copy.exclusiveMaximum !== undefined;
    const hasMin = copy.minimum !== undefined || copy.exclusiveMinimum !== undefined;
    if (!hasMax) copy.maximum = SAFE_INTEGER_BOUND;
    if (!hasMin) copy.minimum = -SAFE_INTEGER_BOUND;
  }
  if (copy.type === 'string' && copy.format === 'integer') copy.format = SAFE_INTEGER_FORMAT;
  if (Array.isArray(copy.anyOf)) {
    const branches = copy.anyOf as Node[];
    const integer = branches.find((b) => b[Kind] === 'Integer');
    const text = branches.find((b) => b.type === 'string' && b.format === SAFE_INTEGER_FORMAT);
    if (integer && text) text.format = boundedIntegerFormat(integer);
  }
  return copy;
}

const isSchema = (value: unknown): value is TSchema =>
  value !== null && typeof value === 'object' && Kind in (value as object);

type BodyCheck = (body: unknown) => void;

const requireObject: BodyCheck = (body) => {
  if (!isObject(body)) throw notAnObject();
};

function compileCheck(schema: TSchema): BodyCheck {
  const root = withSafeIntegers(schema) as TSchema;
  // Elysia forbids unknown properties at the root once it has stripped them; as sent they are ignored.
  if (root.type === 'object') delete root.additionalProperties;
  const compiled = TypeCompiler.Compile(root);
  const objectRoot = root.type === 'object';
  return (body) => {
    if (objectRoot && !isObject(body)) throw notAnObject();
    if (compiled.Check(body)) return;
    const detail = schemaErrorDetails([...compiled.Errors(body)] as SchemaError[]);
    const first = detail[0];
    throw new AppError('validation', first ? `${fieldName(first.path)} ${first.message}` : 'body is not valid', detail);
  };
}

// Schemas are module constants shared by every app a process builds (each test builds one): compiled
// once, on first use, so building an app costs nothing.
const compiledChecks = new WeakMap<TSchema, BodyCheck>();

/** The check of a body as sent against `schema` (a route's `body`), throwing the one error body. */
export function bodyCheck(schema: unknown): BodyCheck {
  if (!isSchema(schema)) return requireObject;
  let check = compiledChecks.get(schema);
  return (body) => {
    if (!check) {
      check = compiledChecks.get(schema) ?? compileCheck(schema);
      compiledChecks.set(schema, check);
    }
    check(body);
  };
}

/**
 * The body of one route: `introspect` learns the route's schema when the route is declared (an
 * Elysia macro hook), `read` reads and checks a request's body. Until introspected it takes objects only.
 */
export function routeBody(limit: number) {
  let check = bodyCheck(undefined);
  return {
    introspect(hook: { body?: unknown }): void {
      check = bodyCheck(hook.body);
    },
    async read(request: Request): Promise<unknown> {
      const body = await readJsonBody(request, limit);
      check(body);
      return body;
    },
  };
}
