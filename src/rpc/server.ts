/**
 * The TCP front door of the push channel (C: Realtime): `Bun.listen`, one session per socket, lines
 * in, replies and hub notifications out. A slow reader never blocks anyone: what its socket cannot
 * take now waits in a bounded outbox, and a connection whose outbox overflows is dropped. Connections
 * silent for 5 minutes are closed by `sweepIdle`, which main runs every few seconds. Silence is
 * counted on `Stalls.listening()` (clock.ts), only while the daemon could listen: after a stall of
 * the daemon itself (a VM paused, SIGSTOP, a hung disk) the sweep that may run before the heartbeats
 * waiting in the sockets are read does not take the stall for the drivers' silence; a driver silent
 * 4 minutes before a 10-minute stall is closed a minute after it, if it still says nothing.
 */
import type { Socket, TCPSocketListener } from 'bun';
import type { Deps } from '../deps';
import type { PushConnection } from './hub';
import { handleLine, mayReceive, type RpcSession, recheckCredential } from './methods';
import { errorLine, LineReader, MAX_LINE_BYTES, TOO_LONG } from './protocol';

export const IDLE_CLOSE_MS = 5 * 60 * 1000;
/** What may wait for a slow reader before its connection is dropped. */
export const MAX_OUTBOX_BYTES = 1024 * 1024;

interface SocketState {
  session: RpcSession;
  reader: LineReader;
  lastActivity: number;
  outbox: Uint8Array[];
  outboxBytes: number;
  closed: boolean;
}

export interface RpcServer {
  hostname: string;
  port: number;
  /** Closes connections silent for IDLE_CLOSE_MS; returns how many. Also reads each authenticated connection's credential again. */
  sweepIdle(): number;
  readonly connectionCount: number;
  /** Closes every connection and stops listening. */
  stop(): void;
}

export interface RpcServerOptions {
  port?: number;
  hostname?: string;
}

const encoder = new TextEncoder();
type RpcSocket = Socket<SocketState>;

/** Starts listening; throws when the port cannot be bound. */
export function startRpcServer(deps: Deps, options: RpcServerOptions = {}): RpcServer {
  const sockets = new Set<RpcSocket>();

  const close = (socket: RpcSocket): void => {
    const state = socket.data;
    if (!state || state.closed) return;
    state.closed = true;
    state.outbox = [];
    state.outboxBytes = 0;
    sockets.delete(socket);
    deps.push.remove(state.session.connection);
    socket.end();
  };

  const flush = (socket: RpcSocket): void => {
    const state = socket.data;
    while (state.outbox.length > 0) {
      const head = state.outbox[0];
      if (!head) break;
      const written = socket.write(head);
      if (written < 0) {
        close(socket);
        return;
      }
      state.outboxBytes -= written;
      if (written < head.length) {
        state.outbox[0] = head.subarray(written);
        return;
      }
      state.outbox.shift();
    }
  };

  const send = (socket: RpcSocket, line: string): boolean => {
    const state = socket.data;
    if (state.closed) return false;
    const bytes = encoder.encode(`${line}\r\n`);
    if (state.outboxBytes + bytes.length > MAX_OUTBOX_BYTES) {
      deps.log.warn({ address: state.session.address }, 'rpc client too slow; connection dropped');
      close(socket);
      return false;
    }
    state.outbox.push(bytes);
    state.outboxBytes += bytes.length;
    flush(socket);
    return !state.closed;
  };

  const receive = (socket: RpcSocket, chunk: Uint8Array): void => {
    const state = socket.data;
    for (const line of state.reader.push(chunk)) {
      if (state.closed) return;
      state.lastActivity = deps.stalls.listening();
      if (line === TOO_LONG) {
        send(socket, errorLine(null, 'invalidRequest', `a line may be at most ${MAX_LINE_BYTES} bytes`));
        continue;
      }
      if (line.trim() === '') continue;
      const reply = handleLine(deps, state.session, line);
      if (reply !== null) send(socket, reply);
    }
  };

  const listener: TCPSocketListener<SocketState> = Bun.listen<SocketState>({
    hostname: options.hostname ?? deps.config.httpHost,
    port: options.port ?? deps.config.rpcPort,
    socket: {
      open(socket) {
        const connection: PushConnection = {
          send: (line) => send(socket, line),
          mayReceive: (target) => mayReceive(deps, socket.data.session, target),
        };
        socket.data = {
          session: { address: socket.remoteAddress || null, principal: null, secret: null, connection },
          reader: new LineReader(),
          lastActivity: deps.stalls.listening(),
          outbox: [],
          outboxBytes: 0,
          closed: false,
        };
        sockets.add(socket);
        deps.push.add(connection);
        deps.log.debug({ address: socket.data.session.address }, 'rpc client connected');
      },
      data: receive,
      drain: flush,
      end: close,
      close,
      error(socket, err) {
        deps.log.debug({ err, address: socket.data?.session.address }, 'rpc socket error');
        close(socket);
      },
    },
  });

  return {
    hostname: listener.hostname,
    port: listener.port,
    sweepIdle() {
      const now = deps.stalls.listening();
      const idle = [...sockets].filter((s) => now - s.data.lastActivity >= IDLE_CLOSE_MS);
      for (const socket of idle) close(socket);
      for (const socket of sockets) recheckCredential(deps, socket.data.session);
      if (idle.length > 0) deps.log.info({ closed: idle.length }, 'idle rpc connections closed');
      return idle.length;
    },
    get connectionCount() {
      return sockets.size;
    },
    stop() {
      for (const socket of [...sockets]) close(socket);
      listener.stop(true);
    },
  };
}
