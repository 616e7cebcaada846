/**
 * Serving the app over HTTP and WebSocket: `Bun.serve` with the app's fetch and Elysia's WebSocket
 * dispatcher, and the server handed to the app so `.ws()` routes can upgrade. main and the WebSocket
 * tests start the server through here, so both run the same transport.
 */
import type { ServerWebSocket, WebSocketHandler } from 'bun';
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

/** Starts listening; throws when the port cannot be bound. */
export function serveHttp(app: Servable, options: ServeOptions): HttpServer {
  const server = Bun.serve<ElysiaWsData>({
    port: options.port,
    hostname: options.hostname,
    // Bodies are limited per route, before they are read: JSON by the body reader (`PMS_MAX_BODY_BYTES`),
    // media uploads by `media.maxUploadBytes` (a setting, 8 GiB by default, streamed to disk). Bun
    // streams request bodies, so the transport sets no cap of its own that would refuse them first.
    maxRequestBodySize: Number.MAX_SAFE_INTEGER,
    fetch: (request) => {
      options.onRequest?.();
      return app.handle(request);
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
