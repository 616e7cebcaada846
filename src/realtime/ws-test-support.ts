/**
 * WebSocket test set-up: the test app served on 127.0.0.1 port 0 the way main serves it, with the
 * peer address taken from the server (as main does) unless a test pretends another one, and a client
 * that queues what it receives.
 */
import { afterEach } from 'bun:test';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { makeTestApp, type TestApp } from '../../tests/helpers/app';
import { type HttpServer, serveHttp } from './http-server';

export interface ServedApp extends TestApp {
  server: HttpServer;
  wsUrl: string;
  /** The address upgrades seem to come from; null = the socket's real one (127.0.0.1, trusted). */
  peer: string | null;
  connect(options?: { headers?: Record<string, string> }): Promise<WsTestClient>;
  stop(): void;
}

/** An address outside every trusted network. */
export const UNTRUSTED = '203.0.113.7';

export function serveTestApp(): ServedApp {
  const t = makeTestApp();
  const server = serveHttp(t.app, { port: 0, hostname: '127.0.0.1', log: t.deps.log });
  const clients: WsTestClient[] = [];
  const served: ServedApp = {
    ...t,
    server,
    wsUrl: `ws://127.0.0.1:${server.port}/api/v1/ws`,
    peer: UNTRUSTED,
    async connect(options = {}) {
      const client = await WsTestClient.open(served.wsUrl, options.headers);
      clients.push(client);
      return client;
    },
    stop() {
      for (const client of clients) client.socket.close();
      t.deps.wsHub.closeAll();
      server.stop(true);
    },
  };
  const fallback = t.deps.remoteAddress;
  t.deps.remoteAddress = (request) => fallback(request) ?? served.peer ?? server.requestIP(request)?.address ?? null;
  return served;
}

/**
 * For a test file: `serve()` starts a served app that is stopped after the test that made it
 * (registers its own `afterEach`).
 */
export function servedPerTest(): { serve(): ServedApp } {
  let served: ServedApp[] = [];
  afterEach(() => {
    for (const s of served) s.stop();
    served = [];
  });
  return {
    serve() {
      const s = serveTestApp();
      served.push(s);
      return s;
    },
  };
}

type Received = Record<string, unknown> & { type: string };

export class WsTestClient {
  private readonly queue: Received[] = [];
  private readonly waiting: Array<(m: Received) => void> = [];
  readonly closing: Promise<{ code: number; reason: string }>;

  private constructor(readonly socket: WebSocket) {
    socket.addEventListener('message', (e) => {
      const message = JSON.parse(String(e.data)) as Received;
      const next = this.waiting.shift();
      if (next) next(message);
      else this.queue.push(message);
    });
    this.closing = new Promise((done) => {
      socket.addEventListener('close', (e) => done({ code: e.code, reason: e.reason }));
    });
  }

  static open(url: string, headers?: Record<string, string>): Promise<WsTestClient> {
    const socket = new WebSocket(url, headers ? { headers } : undefined);
    const client = new WsTestClient(socket);
    return new Promise((resolve, reject) => {
      socket.addEventListener('open', () => resolve(client));
      socket.addEventListener('error', () => reject(new Error('websocket did not open')));
    });
  }

  send(message: unknown): void {
    this.socket.send(typeof message === 'string' ? message : JSON.stringify(message));
  }

  /** The next message, or an error after `ms`. */
  next(ms = 2000): Promise<Received> {
    const queued = this.queue.shift();
    if (queued) return Promise.resolve(queued);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiting.splice(this.waiting.indexOf(done), 1);
        reject(new Error('no message arrived'));
      }, ms);
      const done = (m: Received) => {
        clearTimeout(timer);
        resolve(m);
      };
      this.waiting.push(done);
    });
  }

  /** Round trip: everything the server sent before answering this ping has arrived. */
  async sync(): Promise<Received[]> {
    this.send({ type: 'ping' });
    const before: Received[] = [];
    for (;;) {
      const m = await this.next();
      if (m.type === 'pong') return before;
      before.push(m);
    }
  }

  async subscribe(topics: string[]): Promise<Received> {
    this.send({ type: 'subscribe', topics });
    return this.next();
  }
}

/** Every event type the code emits with a literal name (the first argument after deps), read from src/. */
export function emittedEventTypes(): string[] {
  const root = join(import.meta.dir, '..');
  const files = readdirSync(root, { recursive: true, encoding: 'utf8' }).filter(
    (f) => f.endsWith('.ts') && !f.endsWith('.test.ts'),
  );
  const types = new Set<string>();
  for (const file of files) {
    const text = readFileSync(join(root, file), 'utf8');
    for (const m of text.matchAll(/emit\([\w.]+, ['`]([a-z_]+\.[a-z_.$]*)/g)) if (m[1]) types.add(m[1]);
  }
  return [...types].sort();
}
