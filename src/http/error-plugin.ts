/**
 * The one error path: whatever failed (a thrown AppError, schema validation, bad JSON, an unknown
 * route, a database constraint, a bug) leaves as `{statusCode, code, message, detail?, requestId}`.
 * AppError is checked first: Elysia keys `onError` on an error's own `code` field.
 */
import { Elysia, ValidationError } from 'elysia';
import type { Deps } from '../deps';
import { requestLog, requestMeta } from './context';
import { AppError, type ErrorBody } from './errors';
import { schemaErrorDetails } from './validation';

export function errorResponse(error: AppError, requestId: string): Response {
  const body: ErrorBody = { statusCode: error.status, code: error.errorCode, message: error.message, requestId };
  if (error.detail) body.detail = error.detail;
  return new Response(JSON.stringify(body), {
    status: error.status,
    headers: { 'content-type': 'application/json', 'x-request-id': requestId, ...error.headers },
  });
}

function fromValidation(error: ValidationError): AppError {
  if (error.type === 'property') return new AppError('bad_request', 'a query or path value is not valid');
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

function isDiskFull(error: unknown): boolean {
  const code = (error as { code?: unknown })?.code;
  return code === 'SQLITE_FULL' || code === 'ENOSPC';
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

export function errorPlugin(deps: Deps, routes: () => ReadonlyArray<{ method: string; path: string }>) {
  return new Elysia({ name: 'pms-errors' }).onError({ as: 'global' }, ({ error, code, request }) => {
    const meta = requestMeta(request);
    let appError: AppError;
    const cause = (error as { cause?: unknown }).cause;
    if (error instanceof AppError) appError = error;
    else if (code === 'PARSE' && cause instanceof AppError) appError = cause;
    else if (code === 'PARSE') appError = new AppError('bad_request', 'the body is not valid JSON');
    else if (error instanceof ValidationError && error.type !== 'response') appError = fromValidation(error);
    else if (code === 'NOT_FOUND') {
      const pathname = new URL(request.url).pathname;
      const allowed = methodsFor(routes(), pathname);
      appError =
        allowed.length > 0
          ? new AppError('method_not_allowed', `${request.method} is not allowed here`, undefined, {
              allow: allowed.join(', '),
            })
          : new AppError('not_found', `no route ${request.method} ${pathname}`);
    } else {
      appError =
        sqliteConstraint(error) ??
        (isDiskFull(error)
          ? new AppError('insufficient_storage', 'the disk is full; nothing was changed')
          : new AppError('internal', 'internal error'));
      if (appError.errorCode === 'internal' || appError.errorCode === 'insufficient_storage') {
        requestLog(request, deps.log).error({ err: error }, 'request failed');
      }
    }
    meta.status = appError.status;
    return errorResponse(appError, meta.id);
  });
}
