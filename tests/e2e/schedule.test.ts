/**
 * The schedule runner end to end, against the compiled executable: a TCP client subscribed to a
 * subsystem receives `schedule.item.start` for an event scheduled a few seconds ahead, and start and
 * end for a short playable; a repeated schedule read with the first read's `Last-Modified` gets 304.
 * Runs only with PMS_E2E=1 (after `npm run build`).
 */
import { describe, expect, it } from 'bun:test';
import { connectLines } from '../../src/rpc/test-support';
import { ADMIN_PASSWORD, E2E_ENABLED, sessionOf, suiteDaemon } from './daemon';

describe.skipIf(!E2E_ENABLED)('pmsd (compiled): the schedule runner', () => {
  const suite = suiteDaemon({ PMS_INITIAL_ADMIN_PASSWORD: ADMIN_PASSWORD, PMS_TRUSTED_NETWORKS: '' });

  it('pushes start and end to the subscribed TCP client within a second of the boundaries', async () => {
    const daemon = suite.running();
    const base = `${daemon.baseUrl}/api/v1`;
    const session = await sessionOf(daemon, 'admin', ADMIN_PASSWORD);
    const headers = { authorization: `Bearer ${session}`, 'content-type': 'application/json' };
    const post = async (path: string, body: Record<string, unknown>) => {
      const res = await fetch(`${base}${path}`, { method: 'POST', headers, body: JSON.stringify(body) });
      expect(res.status).toBe(201);
      return (await res.json()) as { _id: number };
    };
    await post('/subsystems', { externalId: 'stage-1' });
    const event = await post('/events', { subsystemExternalId: 'stage-1', externalRef: 'cue-1', command: 'GO 1' });
    const playable = await post('/playables', {
      subsystemExternalId: 'stage-1',
      externalRef: 'clip-1',
      duration: 2000,
    });

    const client = await connectLines(daemon.rpcPort);
    try {
      client.call({ jsonrpc: '2.0', method: 'auth', params: [session], id: 1 });
      expect(await client.next()).toEqual({ jsonrpc: '2.0', result: true, id: 1 });
      client.call({ jsonrpc: '2.0', method: 'subscriptions.add', params: ['stage-1'], id: 2 });
      expect(await client.next()).toEqual({ jsonrpc: '2.0', result: true, id: 2 });

      const start = Math.ceil(Date.now() / 1000) * 1000 + 3000;
      const end = start + 2000;
      const at = (ms: number) => new Date(ms).toISOString();
      await post('/schedules', { itemType: 'EVENT', itemId: event._id, startTime: at(start) });
      await post('/schedules', { itemType: 'PLAYABLE', itemId: playable._id, startTime: at(start), endTime: at(end) });

      const received: { method: string; params: Record<string, unknown>; at: number }[] = [];
      for (let i = 0; i < 3; i++) {
        const line = (await client.next(start + 6000 - Date.now())) as {
          method: string;
          params: Record<string, unknown>;
        };
        received.push({ ...line, at: Date.now() });
      }
      expect(received.map((r) => [r.method, r.params.itemType])).toEqual([
        ['schedule.item.start', 'EVENT'],
        ['schedule.item.start', 'PLAYABLE'],
        ['schedule.item.end', 'PLAYABLE'],
      ]);
      expect(received[0]?.params).toEqual({
        itemType: 'EVENT',
        command: 'GO 1',
        subsystemExternalId: 'stage-1',
        externalRef: 'cue-1',
        itemId: event._id,
        zoneId: 1,
        startTime: at(start),
        endTime: at(start),
      });
      expect(received[2]?.params).toMatchObject({ itemId: playable._id, startTime: at(start), endTime: at(end) });
      const [s0, , e2] = received.map((r) => r.at);
      expect((s0 ?? 0) - start).toBeGreaterThanOrEqual(-50);
      expect((s0 ?? 0) - start).toBeLessThan(1000);
      expect((e2 ?? 0) - end).toBeGreaterThanOrEqual(-50);
      expect((e2 ?? 0) - end).toBeLessThan(1000);
    } finally {
      client.close();
    }
  }, 15_000);

  it('answers a repeated schedule read with the first read’s Last-Modified with 304', async () => {
    const daemon = suite.running();
    const session = await sessionOf(daemon, 'admin', ADMIN_PASSWORD);
    const url = `${daemon.baseUrl}/api/v1/schedule?from=2030-01-01T00:00:00Z&to=2030-01-02T00:00:00Z`;
    const first = await fetch(url, { headers: { authorization: `Bearer ${session}` } });
    expect(first.status).toBe(200);
    const lastModified = first.headers.get('last-modified');
    expect(lastModified).not.toBeNull();
    const second = await fetch(url, {
      headers: { authorization: `Bearer ${session}`, 'if-modified-since': lastModified ?? '' },
    });
    expect(second.status).toBe(304);
    expect(await second.text()).toBe('');
  });
});

describe.skipIf(!E2E_ENABLED)('pmsd (compiled): a restart across a scheduled start', () => {
  const suite = suiteDaemon(null);

  it('catches up what its items say and records the rest missed', async () => {
    const env = { PMS_INITIAL_ADMIN_PASSWORD: ADMIN_PASSWORD, PMS_TRUSTED_NETWORKS: '' };
    let daemon = await suite.start(env);
    let session = await sessionOf(daemon, 'admin', ADMIN_PASSWORD);
    const call = async (method: string, path: string, body?: Record<string, unknown>) => {
      const res = await fetch(`${daemon.baseUrl}/api/v1${path}`, {
        method,
        headers: { authorization: `Bearer ${session}`, 'content-type': 'application/json' },
        body: body ? JSON.stringify(body) : undefined,
      });
      return { status: res.status, body: (await res.json()) as Record<string, unknown> & { _id: number } };
    };
    expect((await call('POST', '/subsystems', { externalId: 'stage-2' })).status).toBe(201);
    const event = (
      await call('POST', '/events', { subsystemExternalId: 'stage-2', externalRef: 'cue-2', command: 'GO 2' })
    ).body;
    const clip = (
      await call('POST', '/playables', { subsystemExternalId: 'stage-2', externalRef: 'clip-2', duration: 60_000 })
    ).body;
    const start = Math.ceil(Date.now() / 1000) * 1000 + 2000;
    const at = (ms: number) => new Date(ms).toISOString();
    const caughtUp = (await call('POST', '/schedules', { itemType: 'EVENT', itemId: event._id, startTime: at(start) }))
      .body;
    const missed = (
      await call('POST', '/schedules', {
        itemType: 'EVENT',
        itemId: event._id,
        startTime: at(start + 500),
        catchUp: false,
      })
    ).body;
    const running = (
      await call('POST', '/schedules', {
        itemType: 'PLAYABLE',
        itemId: clip._id,
        startTime: at(start),
        endTime: at(start + 60_000),
      })
    ).body;

    expect((await daemon.stop('SIGTERM')).code).toBe(0);
    await Bun.sleep(Math.max(0, start + 1500 - Date.now()));
    daemon = await suite.start(env);
    session = await sessionOf(daemon, 'admin', ADMIN_PASSWORD);

    const runs = (await call('GET', '/schedule/runs')).body as unknown as { scheduledItemId: number; status: string }[];
    expect(runs.map((r) => [r.scheduledItemId, r.status]).sort()).toEqual(
      [
        [caughtUp._id, 'caught_up'],
        [missed._id, 'missed'],
        [running._id, 'caught_up'],
      ].sort(),
    );
    const client = await connectLines(daemon.rpcPort);
    try {
      client.call({ jsonrpc: '2.0', method: 'auth', params: [session], id: 1 });
      expect(await client.next()).toEqual({ jsonrpc: '2.0', result: true, id: 1 });
      client.call({ jsonrpc: '2.0', method: 'subscriptions.add', params: ['stage-2'], id: 2 });
      expect(await client.next()).toEqual({ jsonrpc: '2.0', result: true, id: 2 });
      expect(await client.next()).toEqual({
        jsonrpc: '2.0',
        method: 'schedule.item.start',
        params: {
          itemType: 'PLAYABLE',
          command: expect.any(String),
          subsystemExternalId: 'stage-2',
          externalRef: 'clip-2',
          itemId: clip._id,
          zoneId: 1,
          startTime: at(start),
          endTime: at(start + 60_000),
        },
      });
    } finally {
      client.close();
    }
  }, 20_000);
});
