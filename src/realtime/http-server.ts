/**
 * Serving the app over HTTP and WebSocket: `Bun.serve` with the app's fetch and Elysia's WebSocket
 * dispatcher, and the server handed to the app so `.ws()` routes can upgrade. main and the WebSocket
 * tests start the server through here, so both run the same transport.
 */
import { hostname } from 'node:os';
import type { ServerWebSocket, WebSocketHandler } from 'bun';
import { requestMeta } from '../http/context';
import { errorResponse } from '../http/error-plugin';
import { AppError } from '../http/errors';
import type { Logger } from '../log';

export type HttpServer = ReturnType<typeof Bun.serve>;

/** What is served (the Elysia app): its fetch, and where it finds the server to upgrade `.ws()` routes. */
export interface Servable {
  handle(request: Request): Response | Promise<Response>;
  server: HttpServer | null;
}

export interface ServeOptions {
  port: number;
  hostname: string;
  log: Logger;
  /** Called for every request, before it is answered (src/quiet-trim.ts counts them). */
  onRequest?: () => void;
}

/** Largest message a WebSocket client may send (subscribe and auth messages are tiny). */
export const WS_MAX_MESSAGE_BYTES = 64 * 1024;

/** What Elysia's `.ws()` puts in a connection's data: its own handlers, which this dispatches to. */
interface ElysiaWsData {
  open?(ws: WsConnection): unknown;
  message?(ws: WsConnection, message: string | Buffer): unknown;
  drain?(ws: WsConnection): unknown;
  close?(ws: WsConnection, code: number, reason: string): unknown;
  ping?(ws: WsConnection, data: Buffer): unknown;
  pong?(ws: WsConnection, data: Buffer): unknown;
}
type WsConnection = ServerWebSocket<ElysiaWsData>;

/** Elysia's `websocket` export, typed for this Bun (Elysia's copy of the types lags behind). */
const dispatch: Pick<WebSocketHandler<ElysiaWsData>, 'open' | 'message' | 'drain' | 'close' | 'ping' | 'pong'> = {
  open: (ws) => void ws.data.open?.(ws),
  message: (ws, message) => void ws.data.message?.(ws, message),
  drain: (ws) => void ws.data.drain?.(ws),
  close: (ws, code, reason) => void ws.data.close?.(ws, code, reason),
  ping: (ws, data) => void ws.data.ping?.(ws, data),
  pong: (ws, data) => void ws.data.pong?.(ws, data),
};

/**
 * The server's default name (RFC 9112 §3.3): the authority of a request that named none. The
 * machine's host name, when a URL takes it, else `localhost`; with the port listened on.
 */
function defaultAuthority(port: number | undefined): string {
  const suffix = port === undefined ? '' : `:${port}`;
  try {
    return new URL(`http://${hostname()}${suffix}`).host;
  } catch {
    return `localhost${suffix}`;
  }
}

const SLASH = 0x2f;

/**
 * The request the app is given, or the answer to one it must not see: the URL as Bun gives it,
 * checked before the app reads it (every route and log line takes `new URL(request.url)` for
 * granted, and one that threw after the answer took the process down):
 * - An HTTP/1.0 request may come without `Host` (RFC 9112 §3.2 requires it of HTTP/1.1 only, and Bun
 *   refuses those with 400 before the app sees them), or with an empty one: Bun then gives the bare
 *   target (`/api/v1/health`), which no URL parser takes, and such a request was answered 500.
 *   RFC 9112 §3.3: the target URI is rebuilt with the server's default name, keeping the method,
 *   headers and body, and the client's address, which the server knows only from the request it
 *   received.
 * - A `Host` that is not a host (`a b`, `evil.com/x?`: Bun gives the bare target too) or one Bun
 *   takes but no URL does (`pms:99999`, `pms:abc`, `[::1`) is answered 400 `bad_request`, as RFC 9112
 *   §3.2 asks, in the body every error has. `pms:99999` had killed the daemon: its request line's
 *   `new URL` threw after the answer was sent.
 * The check costs a `URL.canParse` of each request's URL (96 ns, bench/RESULTS.md).
 */
function admitted(request: Request, server: HttpServer, log: Logger): Request | Response {
  const url = request.url;
  if (url.charCodeAt(0) !== SLASH) return URL.canParse(url) ? request : badHost(request, log);
  if (request.headers.get('host')) return badHost(request, log);
  const address = server.requestIP(request)?.address ?? null;
  const rebuilt = new Request(`http://${defaultAuthority(server.port)}${url}`, request);
  requestMeta(rebuilt).address = address;
  return rebuilt;
}

function badHost(request: Request, log: Logger): Response {
  const { id } = requestMeta(request);
  log.info({ requestId: id, method: request.method, status: 400 }, 'request refused: its Host is not a host name');
  return errorResponse(new AppError('bad_request', 'the Host header is not a valid host name'), id);
}

/** Starts listening; throws when the port cannot be bound. */
export function serveHttp(app: Servable, options: ServeOptions): HttpServer {
  const server = Bun.serve<ElysiaWsData>({
    port: options.port,
    hostname: options.hostname,
    // Bodies are limited per route, before they are read: JSON by the body reader (`PMS_MAX_BODY_BYTES`),
    // media uploads by `media.maxUploadBytes` (a setting, 8 GiB by default, streamed to disk). Bun
    // streams request bodies, so the transport sets no cap of its own that would refuse them first.
    maxRequestBodySize: Number.MAX_SAFE_INTEGER,
    // Bun's development mode is its default wherever NODE_ENV is not `production` (the unit sets none):
    // an error that escaped `error` below would be answered with Bun's page of stack and source. The
    // daemon is never in it; measured, the mode changes neither speed nor memory (bench/RESULTS.md,
    // "Hot paths, session 18").
    development: false,
    fetch: (request, server) => {
      options.onRequest?.();
      const admit = admitted(request, server, options.log);
      return admit instanceof Response ? admit : app.handle(admit);
    },
    websocket: {
      ...dispatch,
      maxPayloadLength: WS_MAX_MESSAGE_BYTES,
      // The hub pings every 30 s and closes clients silent for 90 s; Bun's own timer is the backstop.
      idleTimeout: 120,
      sendPings: false,
      // The hub drops a client past 1 MiB waiting; this is the transport's backstop.
      backpressureLimit: 4 * 1024 * 1024,
      closeOnBackpressureLimit: true,
    },
    error: (err) => {
      options.log.error({ err }, 'unhandled server error');
      return new Response(JSON.stringify({ statusCode: 500, code: 'internal', message: 'internal error' }), {
        status: 500,
        headers: { 'content-type': 'application/json' },
      });
    },
  });
  app.server = server;
  return server;
}
