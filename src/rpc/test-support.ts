/** A line client for tests of the push channel (unit tests and the compiled daemon alike). */
import type { Socket } from 'bun';
import { makeTestApp } from '../../tests/helpers/app';
import { type RpcServer, startRpcServer } from './server';

export interface LineClient {
  /** Writes raw text as it is (no line end added). */
  write(text: string): void;
  /** Sends one JSON message followed by `\r\n`. */
  call(message: Record<string, unknown>): void;
  /** The next line received, parsed; rejects after `timeoutMs`. */
  next(timeoutMs?: number): Promise<unknown>;
  /** Resolves true once the server has closed the connection (false after `timeoutMs`). */
  closed(timeoutMs?: number): Promise<boolean>;
  /** Lines received and not yet taken with next(). */
  readonly waiting: number;
  close(): void;
}

/** Connects to host:port and collects `\r\n`-terminated lines. */
export async function connectLines(port: number, hostname = '127.0.0.1'): Promise<LineClient> {
  const lines: string[] = [];
  const waiters: Array<(line: string) => void> = [];
  let buffer = '';
  let isClosed = false;
  const closeWaiters: Array<() => void> = [];
  const decoder = new TextDecoder();

  const socket: Socket<undefined> = await Bun.connect({
    hostname,
    port,
    socket: {
      data(_socket, chunk) {
        buffer += decoder.decode(chunk, { stream: true });
        let at = buffer.indexOf('\r\n');
        while (at !== -1) {
          const line = buffer.slice(0, at);
          buffer = buffer.slice(at + 2);
          const waiter = waiters.shift();
          if (waiter) waiter(line);
          else lines.push(line);
          at = buffer.indexOf('\r\n');
        }
      },
      close() {
        isClosed = true;
        for (const done of closeWaiters.splice(0)) done();
      },
    },
  });

  const next = (timeoutMs = 2000): Promise<unknown> => {
    const ready = lines.shift();
    if (ready !== undefined) return Promise.resolve(JSON.parse(ready));
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        const i = waiters.indexOf(take);
        if (i >= 0) waiters.splice(i, 1);
        reject(new Error(`no line within ${timeoutMs} ms`));
      }, timeoutMs);
      const take = (line: string) => {
        clearTimeout(timer);
        resolve(JSON.parse(line));
      };
      waiters.push(take);
    });
  };

  const closed = (timeoutMs = 2000): Promise<boolean> =>
    isClosed
      ? Promise.resolve(true)
      : new Promise((resolve) => {
          const timer = setTimeout(() => resolve(false), timeoutMs);
          closeWaiters.push(() => {
            clearTimeout(timer);
            resolve(true);
          });
        });

  return {
    write: (text) => void socket.write(text),
    call: (message) => void socket.write(`${JSON.stringify(message)}\r\n`),
    next,
    closed,
    get waiting() {
      return lines.length;
    },
    close: () => socket.end(),
  };
}

export const ok = (id: number | string, result: unknown) => ({ jsonrpc: '2.0', result, id });

export const rpcError = (id: number | string | null, code: number, message: string, data?: string) => ({
  jsonrpc: '2.0',
  error: data === undefined ? { code, message } : { code, message, data },
  id,
});

const running: Array<{ server: RpcServer; clients: LineClient[] }> = [];

/** Closes every server and client rpcApp() made; run it afterEach. */
export function stopRpcApps(): void {
  for (const { server, clients } of running.splice(0)) {
    for (const c of clients) c.close();
    server.stop();
  }
}

/** A test app, its RPC server on a free loopback port, and a way to connect clients to it. */
export function rpcApp(options: Parameters<typeof makeTestApp>[0] = {}) {
  const t = makeTestApp(options);
  const server = startRpcServer(t.deps, { port: 0, hostname: '127.0.0.1' });
  const entry = { server, clients: [] as LineClient[] };
  running.push(entry);
  const client = async () => {
    const c = await connectLines(server.port);
    entry.clients.push(c);
    return c;
  };
  return { ...t, server, client };
}
