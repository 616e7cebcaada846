/** Shared set-up for the webhook tests: a local receiver, fake name resolution and a webhook factory. */
import { afterEach } from 'bun:test';
import { createHmac } from 'node:crypto';
import { makeTestApp, type TestApp } from '../../../tests/helpers/app';
import { setWebhookIo } from '../../realtime/dispatch-io';
import { takeInOutbox } from '../../realtime/outbox';

export const T0 = '2026-01-15T12:00:00.000Z';

export interface Received {
  headers: Record<string, string>;
  body: string;
}

export interface Receiver {
  url: string;
  port: number;
  received: Received[];
  /** Decides each answer (default 200 "ok"). */
  respond: (req: Request, body: string) => Response | Promise<Response>;
  stop(): void;
}

/** A real HTTP receiver on a free loopback port (needs allowPrivateNetwork). */
export function receiver(path = '/hook'): Receiver {
  const r: Receiver = {
    url: '',
    port: 0,
    received: [],
    respond: () => new Response('ok'),
    stop: () => server.stop(true),
  };
  const server = Bun.serve({
    port: 0,
    hostname: '127.0.0.1',
    fetch: async (req) => {
      const body = await req.text();
      r.received.push({ headers: Object.fromEntries(req.headers), body });
      return r.respond(req, body);
    },
  });
  r.port = server.port ?? 0;
  r.url = `http://127.0.0.1:${r.port}${path}`;
  return r;
}

/** Makes the receiver hold every answer (200 with `body`) until the returned release is called. */
export function holdAnswers(r: Receiver, body = 'ok'): () => void {
  let release: () => void = () => {};
  const gate = new Promise<void>((resolve) => {
    release = resolve;
  });
  r.respond = async () => {
    await gate;
    return new Response(body);
  };
  return release;
}

/** `serve()` starts a receiver that is stopped after the test. Call at the top of a test file. */
export function receiverPool(): (path?: string) => Receiver {
  const running: Receiver[] = [];
  afterEach(() => {
    for (const r of running.splice(0)) r.stop();
  });
  return (path) => {
    const r = receiver(path);
    running.push(r);
    return r;
  };
}

/** The names the tests resolve: everything else fails to resolve. */
export const NAMES: Record<string, string[]> = {
  'hooks.example.com': ['203.0.113.10'],
  'intranet.example.com': ['192.168.1.20'],
  'mixed.example.com': ['203.0.113.11', '10.1.2.3'],
  'linklocal.example.com': ['169.254.169.254'],
};

/** A test app whose webhooks resolve names from NAMES and jitter with random 0.5 (exact delays). */
export function webhookApp(options: { dataDir?: string } = {}): TestApp {
  const t = makeTestApp({ start: T0, config: options.dataDir ? { dataDir: options.dataDir } : {} });
  setWebhookIo(t.deps, {
    random: () => 0.5,
    lookup: async (host) => {
      const found = NAMES[host];
      if (!found) throw new Error(`ENOTFOUND ${host}`);
      return found;
    },
  });
  return t;
}

/** Creates a webhook as admin; returns the create answer's body (with its secret). */
export async function addWebhook(t: TestApp, body: Record<string, unknown>) {
  const res = await t.call('POST', '/webhook', { as: 'admin', body: { displayName: 'Receiver', ...body } });
  if (res.status !== 201) throw new Error(`webhook create answered ${res.status}: ${res.text}`);
  return res.body as { _id: number; secret: string } & Record<string, unknown>;
}

/** An independent Standard Webhooks signature check: the base64 HMAC-SHA256 of `id.timestamp.body`. */
export function expectedSignature(secret: string, id: string, timestamp: string, body: string): string {
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  return `v1,${createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64')}`;
}

/** Delivery rows of a webhook as stored, oldest first, after the writer's outbox was taken in. */
export function deliveryRows(t: TestApp, webhookId: number) {
  while (takeInOutbox(t.deps)) {}
  return t.deps.sqlite
    .query<
      { id: number; event_type: string; status: string; next_attempt_at: number | null; attempts: string },
      [number]
    >(
      'SELECT id, event_type, status, next_attempt_at, attempts FROM webhook_deliveries WHERE webhook_id = ? ORDER BY id',
    )
    .all(webhookId);
}
