/**
 * The one error path: whatever failed (a thrown AppError, schema validation, bad JSON, an unknown
 * route, a database constraint, a bug) leaves as `{statusCode, code, message, detail?, requestId}`.
 * AppError is checked first: Elysia keys `onError` on an error's own `code` field.
 *
 * Response drift (an answer that breaks its route's declared schema, after Elysia has stripped the
 * fields the schema does not name) is a bug of ours, never the caller's: the daemon sends the answer
 * as built, with its status and headers, and logs one compact warning (route, schema paths, no
 * values) per route and problem an hour, so one odd value can never take a read or a write down for
 * every caller nor flood the log. Under `config.strictResponses` (the test harness) the same drift
 * answers 500, so the test that produced it fails. ARCHITECTURE.md "Responses" has the reasoning.
 */
import { Elysia, ValidationError } from 'elysia';
import type { Deps } from '../deps';
import { validCaller } from './auth';
import { requestLog, requestMeta } from './context';
import { AppError, diskFull, type ErrorBody, type ErrorDetail, echoed, isDiskFull, unauthorized } from './errors';
import { BAD_ENCODING_MESSAGE, decodeOrNull } from './percent';
import { schemaErrorDetails } from './validation';

/** An unknown route's 404 names at most this much of its path (errors.ts `echoed`). */
const ECHOED_PATH_MAX = 128;
const DRIFT_WARN_EVERY_MS = 3_600_000;
const DISK_FULL_WARN_EVERY_MS = 60_000;

export function errorResponse(error: AppError, requestId: string): Response {
  const body: ErrorBody = { statusCode: error.status, code: error.errorCode, message: error.message, requestId };
  if (error.detail) body.detail = error.detail;
  return new Response(JSON.stringify(body), {
    status: error.status,
    headers: { 'content-type': 'application/json', 'x-request-id': requestId, ...error.headers },
  });
}

function fromValidation(error: ValidationError, request: Request): AppError {
  if (error.type === 'property') return new AppError('bad_request', 'a query or path value is not valid');
  // Elysia leaves a path parameter it cannot decode undefined, which its schema then refuses.
  if (error.type === 'params' && decodeOrNull(new URL(request.url).pathname) === null)
    return new AppError('bad_request', BAD_ENCODING_MESSAGE);
  const detail = schemaErrorDetails(error.all as Parameters<typeof schemaErrorDetails>[0]);
  const first = detail[0];
  const where = error.type === 'body' ? '' : `${error.type} `;
  const message = first
    ? `${where}${first.path.split('/').filter(Boolean).join('.') || error.type} ${first.message}`
    : 'invalid request';
  return new AppError(error.type === 'body' ? 'validation' : 'bad_request', message, detail);
}

function sqliteConstraint(error: unknown): AppError | null {
  const code = (error as { code?: unknown })?.code;
  if (typeof code !== 'string' || !code.startsWith('SQLITE_CONSTRAINT')) return null;
  if (code === 'SQLITE_CONSTRAINT_FOREIGNKEY')
    return new AppError('conflict', 'the change conflicts with related data');
  return new AppError('conflict', 'an entity with the same key already exists');
}

/** Paths of the route table as matchers, to tell 405 (known path, other method) from 404. */
function methodsFor(routes: ReadonlyArray<{ method: string; path: string }>, pathname: string): string[] {
  const methods = new Set<string>();
  for (const route of routes) {
    const path = route.path.length > 1 ? route.path.replace(/\/$/, '') : route.path;
    const pattern = new RegExp(`^${path.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/:[^/]+/g, '[^/]+')}/?$`);
    if (pattern.test(pathname)) methods.add(route.method);
  }
  return [...methods];
}

/** Where a response breaks its schema: JSON pointers and schema messages, never the values. */
function driftProblems(error: ValidationError): ErrorDetail[] {
  const validator = error.validator as { Errors?: (value: unknown) => Iterable<{ path: string; message: string }> };
  const problems: ErrorDetail[] = [];
  if (typeof validator.Errors !== 'function') return problems;
  for (const e of validator.Errors(error.value)) {
    problems.push({ path: e.path || '/', message: e.message });
    if (problems.length === 5) break;
  }
  return problems;
}

/** The answer as the handler built it, sent despite its drift (see the module comment). */
function asBuilt(value: unknown, status: number, headers: Record<string, unknown>, requestId: string): Response {
  const out = new Headers();
  for (const [k, v] of Object.entries(headers)) if (typeof v === 'string') out.set(k, v);
  out.set('content-type', 'application/json');
  out.set('x-request-id', requestId);
  return new Response(value === undefined ? null : JSON.stringify(value), { status, headers: out });
}

/**
 * What every door answers a thrown error with, shared by the Elysia pipeline (`errorPlugin`) and the
 * doors in front of it (http/door.ts): an AppError as it is, a constraint as 409,
 * a full disk as 507 (one warning a minute while it lasts), anything else as 500 with its stack in
 * the log. One per app, for the disk-full warning's pace.
 */
export class ErrorAnswers {
  private diskFullWarnedAt: number | null = null;

  constructor(private readonly deps: Deps) {}

  /** The AppError a thrown value answers with; logs one that is a bug of ours. */
  of(error: unknown, request: Request): AppError {
    if (error instanceof AppError) return error;
    const appError =
      sqliteConstraint(error) ?? (isDiskFull(error) ? diskFull() : new AppError('internal', 'internal error'));
    if (appError.errorCode === 'internal') requestLog(request, this.deps.log).error({ err: error }, 'request failed');
    return appError;
  }

  /** The error body for `appError`, its status noted for the request log line. */
  answer(appError: AppError, request: Request): Response {
    // While the disk is full every write is refused: one warning a minute says so, not a stack per write.
    if (appError.errorCode === 'insufficient_storage') {
      const now = this.deps.clock.monotonic();
      if (this.diskFullWarnedAt === null || now - this.diskFullWarnedAt >= DISK_FULL_WARN_EVERY_MS) {
        this.diskFullWarnedAt = now;
        requestLog(request, this.deps.log).warn(
          { method: request.method, path: new URL(request.url).pathname },
          'the disk is full: writes are refused with 507 until space returns',
        );
      }
    }
    const meta = requestMeta(request);
    meta.status = appError.status;
    return errorResponse(appError, meta.id);
  }
}

export function errorPlugin(
  deps: Deps,
  routes: () => ReadonlyArray<{ method: string; path: string }>,
  answers = new ErrorAnswers(deps),
) {
  const driftWarnedAt = new Map<string, number>();
  return (
    new Elysia({ name: 'pms-errors' })
      // Elysia overwrites a 2xx status with 422 before onError sees a response that failed its check,
      // so the status the handler chose is kept here, after the handler and before that check.
      .onAfterHandle({ as: 'global' }, ({ request, set }) => {
        if (typeof set.status === 'number') requestMeta(request).builtStatus = set.status;
      })
      .onError({ as: 'global' }, ({ error, code, request, set, route }) => {
        const meta = requestMeta(request);
        if (error instanceof ValidationError && error.type === 'response') {
          const problems = driftProblems(error);
          const key = `${request.method} ${route} ${problems.map((p) => p.path.replace(/\/\d+(?=\/|$)/g, '/*')).join(',')}`;
          const now = deps.clock.monotonic();
          const last = driftWarnedAt.get(key);
          if (deps.config.strictResponses || last === undefined || now - last >= DRIFT_WARN_EVERY_MS) {
            driftWarnedAt.set(key, now);
            requestLog(request, deps.log).warn(
              { method: request.method, route, problems },
              'response does not match its declared schema',
            );
          }
          if (!deps.config.strictResponses) {
            const status = meta.builtStatus ?? 200;
            // Elysia applies set.status to the Response an error hook returns.
            set.status = status;
            return asBuilt(error.value, status, set.headers as Record<string, unknown>, meta.id);
          }
          meta.status = 500;
          set.status = 500;
          return errorResponse(new AppError('internal', 'internal error'), meta.id);
        }
        let appError: AppError;
        const cause = (error as { cause?: unknown }).cause;
        if (error instanceof AppError) appError = error;
        else if (code === 'PARSE' && cause instanceof AppError) appError = cause;
        else if (code === 'PARSE') appError = new AppError('bad_request', 'the body is not valid JSON');
        else if (error instanceof ValidationError && error.type !== 'response')
          appError = fromValidation(error, request);
        else if (error instanceof URIError) appError = new AppError('bad_request', BAD_ENCODING_MESSAGE);
        else if (code === 'NOT_FOUND') {
          const pathname = new URL(request.url).pathname;
          // A WebSocket route is an HTTP GET carrying `Upgrade: websocket` (RFC 6455 §4.2.1: 400 without it).
          const found = methodsFor(routes(), pathname);
          const allowed = [...new Set(found.map((m) => (m === 'WS' ? 'GET' : m)))];
          if (request.method === 'GET' && found.includes('WS'))
            appError = new AppError('bad_request', 'this path opens a WebSocket: send the upgrade headers');
          // C: Authentication: any request without a valid credential, from an untrusted address, is
          // 401 (the public routes all exist): no 404 or 405 tells such a caller which paths exist.
          else if (!validCaller(deps, request)) appError = unauthorized();
          else
            appError =
              allowed.length > 0
                ? new AppError('method_not_allowed', `${request.method} is not allowed here`, undefined, {
                    allow: allowed.join(', '),
                  })
                : new AppError('not_found', `no route ${echoed(request.method)} ${echoed(pathname, ECHOED_PATH_MAX)}`);
        } else appError = answers.of(error, request);
        return answers.answer(appError, request);
      })
  );
}
