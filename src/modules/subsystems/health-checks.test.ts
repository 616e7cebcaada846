import { afterEach, describe, expect, it } from 'bun:test';
import { tickHealth } from './health';
import { HealthCheckPoller, networkProbe } from './health-checks';
import { subsystemApp as setup } from './test-support';

const servers: Array<{ stop(force?: boolean): unknown }> = [];
afterEach(() => {
  for (const s of servers.splice(0)) s.stop(true);
});

/** A loopback HTTP server answering with `status()`; counts requests. */
function httpServer(status: () => number) {
  const seen = { requests: 0 };
  const server = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    fetch: () => {
      seen.requests += 1;
      return new Response('ok', { status: status() });
    },
  });
  servers.push(server);
  return { url: `http://127.0.0.1:${server.port}/health`, seen };
}

function tcpServer() {
  const listener = Bun.listen({
    hostname: '127.0.0.1',
    port: 0,
    socket: { data() {}, open() {} },
  });
  servers.push(listener);
  return listener.port;
}

/** A port nothing listens on (bound, then released). */
function closedPort(): number {
  const listener = Bun.listen({ hostname: '127.0.0.1', port: 0, socket: { data() {} } });
  const { port } = listener;
  listener.stop(true);
  return port;
}

describe('health checks (rule 7)', () => {
  it('http: an answer below 400 is contact, polled every intervalSeconds on the monotonic clock', async () => {
    const t = setup();
    let status = 200;
    const { url, seen } = httpServer(() => status);
    const { body } = await t.create({
      externalId: 'media',
      healthGracePeriod: 12,
      healthCheck: { mode: 'http', url, intervalSeconds: 5, timeoutSeconds: 2 },
    });
    const poller = new HealthCheckPoller(t.deps);
    await poller.pollDue();
    expect(seen.requests).toBe(1);
    expect(t.emitted('subsystem.online')).toEqual([
      {
        _id: body._id,
        externalId: 'media',
        status: 'online',
        lastContactedAt: '2026-01-15T12:00:00.000Z',
        recovered: false,
      },
    ]);
    expect((await t.read(body._id)).heartbeat.count).toBe(0);
    t.clock.advance(4999);
    await poller.pollDue();
    expect(seen.requests).toBe(1);
    t.clock.advance(1);
    await poller.pollDue();
    expect(seen.requests).toBe(2);
    expect((await t.read(body._id)).lastContactedAt).toBe('2026-01-15T12:00:05.000Z');

    status = 302;
    t.clock.advance(5000);
    await poller.pollDue();
    expect((await t.read(body._id)).lastContactedAt).toBe('2026-01-15T12:00:10.000Z');

    status = 503;
    for (let i = 0; i < 3; i++) {
      t.clock.advance(5000);
      await poller.pollDue();
      tickHealth(t.deps);
    }
    expect(seen.requests).toBe(6);
    expect(t.emitted('subsystem.offline')).toHaveLength(1);
    expect((await t.read(body._id)).lastContactedAt).toBe('2026-01-15T12:00:10.000Z');
  });

  it('tcp: an accepted connection is contact; a refused one is not', async () => {
    const t = setup();
    const port = tcpServer();
    await t.create({ externalId: 'up', healthCheck: { mode: 'tcp', host: '127.0.0.1', port } });
    await t.create({ externalId: 'down', healthCheck: { mode: 'tcp', host: '127.0.0.1', port: closedPort() } });
    await new HealthCheckPoller(t.deps).pollDue();
    expect((await t.read('up')).status).toBe('online');
    expect((await t.read('down')).status).toBe('unknown');
  });

  it('heartbeats still count, and subsystems with healthEnabled false or mode heartbeat are not polled', async () => {
    const t = setup();
    const { url, seen } = httpServer(() => 500);
    await t.create({ externalId: 'off', healthEnabled: false, healthCheck: { mode: 'http', url } });
    await t.create({ externalId: 'beats' });
    await t.create({ externalId: 'failing', healthCheck: { mode: 'http', url } });
    await new HealthCheckPoller(t.deps).pollDue();
    expect(seen.requests).toBe(1);
    expect((await t.read('failing')).status).toBe('unknown');
    await t.beat('failing');
    expect((await t.read('failing')).status).toBe('online');
  });

  it('the network probe gives up after the timeout', async () => {
    const server = Bun.serve({
      hostname: '127.0.0.1',
      port: 0,
      fetch: async () => {
        await Bun.sleep(2000);
        return new Response('late');
      },
    });
    servers.push(server);
    expect(await networkProbe.http(`http://127.0.0.1:${server.port}/`, 50)).toBe(false);
    expect(await networkProbe.http('http://127.0.0.1:1/', 1000)).toBe(false);
  });
});
