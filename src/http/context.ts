/** Per-request facts kept beside the Request object: its id, start time, logger and caller. */

import type { Principal } from '../core/principal';
import type { Logger } from '../log';

export interface RequestMeta {
  id: string;
  startedAt: number;
  /** The request's child logger, made on first use (most requests never log more than their one line). */
  log: Logger | null;
  /** A successful answer is logged at debug, not info (`logRequestLine`). */
  quiet?: boolean;
  /** The status a handler set, before Elysia's response check (the error plugin's drift path). */
  builtStatus?: number;
  /** Status of an error answer, for the request log line. */
  status?: number;
  /** undefined: not decided yet; null: no credential. */
  principal?: Principal | null;
  /** Why the request's credential was refused, once decided (thrown again on every later check). */
  authError?: unknown;
  /** The peer's address, once asked (the server's look-up builds a new object each time). */
  address?: string | null;
  /** Whether the query carries a link signature (`signedLink` routes), once asked. */
  signed?: boolean;
  /** Rows written through the database connection when the handler began (db/durability.ts). */
  writesBefore?: number;
}

/**
 * Where a request's meta is kept: a property of the Request object itself, not a WeakMap keyed by it
 * (a WeakMap entry costs a hashed look-up on every read and work for the collector on every request:
 * 0.15-0.2 µs a request in a loop, bench/RESULTS.md "Hot paths, session 12").
 */
const META = Symbol('pms request meta');
type WithMeta = Request & { [META]?: RequestMeta };

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

export function requestMeta(request: Request): RequestMeta {
  let meta = (request as WithMeta)[META];
  if (!meta) {
    const sent = request.headers.get('x-request-id');
    meta = {
      id: sent && REQUEST_ID.test(sent) ? sent : crypto.randomUUID(),
      startedAt: performance.now(),
      log: null,
    };
    (request as WithMeta)[META] = meta;
  }
  return meta;
}

/** The request's child logger carrying its requestId. */
export function requestLog(request: Request, root: Logger): Logger {
  const meta = requestMeta(request);
  meta.log ??= root.child({ requestId: meta.id });
  return meta.log;
}

/**
 * The one line every request leaves in the log, once answered: at debug for a success of a quiet
 * route (the ingest routes field clients call many times a second), at info otherwise.
 */
export function logRequestLine(log: Logger, request: Request, status: number): void {
  const meta = requestMeta(request);
  const level = meta.quiet && status < 400 ? 'debug' : 'info';
  if (!log.isLevelEnabled(level)) return;
  log[level](
    {
      requestId: meta.id,
      method: request.method,
      path: new URL(request.url).pathname,
      status,
      durationMs: Math.round((performance.now() - meta.startedAt) * 100) / 100,
    },
    'request',
  );
}
