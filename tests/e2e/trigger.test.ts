/**
 * The integration core end to end, against the compiled executable: a TCP client subscribed to a
 * subsystem receives the `schedule.item.start` that `POST /api/v1/events/{id}/trigger` sends.
 * Runs only with PMS_E2E=1 (after `npm run build`).
 */
import { describe, expect, it } from 'bun:test';
import { connectLines } from '../../src/rpc/test-support';
import { ADMIN_PASSWORD, E2E_ENABLED, sessionOf, suiteDaemon } from './daemon';

describe.skipIf(!E2E_ENABLED)('pmsd (compiled): event trigger over the push channel', () => {
  const suite = suiteDaemon({ PMS_INITIAL_ADMIN_PASSWORD: ADMIN_PASSWORD, PMS_TRUSTED_NETWORKS: '' });

  it('delivers a manual trigger to the subscribed TCP client', async () => {
    const daemon = suite.running();
    const base = `${daemon.baseUrl}/api/v1`;
    const session = await sessionOf(daemon, 'admin', ADMIN_PASSWORD);
    const headers = { authorization: `Bearer ${session}`, 'content-type': 'application/json' };
    const sub = await fetch(`${base}/subsystems`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ externalId: 'show-1' }),
    });
    expect(sub.status).toBe(201);
    const event = await fetch(`${base}/events`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ subsystemExternalId: 'show-1', externalRef: 'cue-7', command: 'GO 7' }),
    });
    expect(event.status).toBe(201);
    const { _id: eventId } = (await event.json()) as { _id: number };

    const client = await connectLines(daemon.rpcPort);
    try {
      client.call({ jsonrpc: '2.0', method: 'auth', params: [session], id: 1 });
      expect(await client.next()).toEqual({ jsonrpc: '2.0', result: true, id: 1 });
      client.call({ jsonrpc: '2.0', method: 'subscriptions.add', params: ['show-1'], id: 2 });
      expect(await client.next()).toEqual({ jsonrpc: '2.0', result: true, id: 2 });

      const fired = await fetch(`${base}/events/${eventId}/trigger`, { method: 'POST', headers, body: '{}' });
      expect(fired.status).toBe(200);
      const answer = (await fired.json()) as { eventId: number; firedAt: string; deliveredTo: string[] };
      expect(answer).toMatchObject({ eventId, deliveredTo: ['show-1'] });

      const notification = await client.next(3000);
      expect(notification).toEqual({
        jsonrpc: '2.0',
        method: 'schedule.item.start',
        params: expect.objectContaining({
          itemType: 'EVENT',
          command: 'GO 7',
          subsystemExternalId: 'show-1',
          externalRef: 'cue-7',
          itemId: eventId,
          zoneId: 1,
          startTime: answer.firedAt,
          endTime: answer.firedAt,
        }),
      });
    } finally {
      client.close();
    }
  });
});
