/**
 * The field drivers' behaviours (issue "field clients", items 1–5) against the compiled executable,
 * with a client that behaves as they do: requests without `id`, no `auth` on the push channel, only
 * `message[0]` read from each heartbeat, media fetched by a browser that sends no header, a fleet
 * connection subscribed to the container and all its players. Nothing is trusted; the Host is short.
 */
import { afterAll, describe, expect, it } from 'bun:test';
import { pngBytes, sha256Of } from '../../src/modules/objects/test-support';
import { connectLines, type LineClient } from '../../src/rpc/test-support';
import { ADMIN_PASSWORD, E2E_ENABLED, sessionOf, suiteDaemon } from './daemon';

/** What the test reads of a heartbeat's message. */
interface Message {
  type: string;
  payload: {
    playable: {
      command: string;
      objectsDetails: Array<{ metadata: { mediaInfo: unknown }; _links: { get: string } }>;
    };
  };
}

describe.skipIf(!E2E_ENABLED)('field clients (compiled)', () => {
  const clients: LineClient[] = [];
  afterAll(() => {
    for (const client of clients) client.close();
  });
  const suite = suiteDaemon({ PMS_INITIAL_ADMIN_PASSWORD: ADMIN_PASSWORD, PMS_TRUSTED_NETWORKS: '' });

  it('one message per heartbeat, data.video.self, header-less media, per-player pushes, visible refusals', async () => {
    const daemon = suite.running();
    const session = await sessionOf(daemon, 'admin', ADMIN_PASSWORD);
    const call = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
      const res = await fetch(`${daemon.baseUrl}/api/v1${path}`, {
        method,
        headers: { authorization: `Bearer ${session}`, host: 'pms', 'content-type': 'application/json', ...headers },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await res.text();
      return { status: res.status, body: text === '' ? null : JSON.parse(text) };
    };
    const wall = (await call('POST', '/subsystems', { externalId: 'wall', type: 'screenContainer' })).body;
    for (const externalId of ['spot-1', 'spot-2']) {
      expect((await call('POST', '/players', { externalId, container: 'wall' })).status).toBe(201);
    }
    const integration = (await call('GET', '/roles')).body.find((r: { name: string }) => r.name === 'integration');
    const token = (
      await call('POST', '/tokens', { displayName: 'wall', roleId: integration._id, subsystemIds: [wall._id] })
    ).body.token as string;
    // The driver sends its token in isaac-token, never in Authorization.
    const asDriver = (method: string, path: string, body?: unknown) =>
      fetch(`${daemon.baseUrl}/api/v1${path}`, {
        method,
        headers: { 'isaac-token': token, host: 'pms', 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      }).then(async (res) => ({
        status: res.status,
        body: (await res.json()) as { message: Message[] },
      }));
    const firstMessage = async (id: string) =>
      (await asDriver('PUT', `/subsystems/${id}/heartbeat`)).body.message[0] as Message;

    // 5. A push subscription without auth and without id, and a log post without the token: refused,
    // and people are told once (same address), with the address and the setting.
    const anonymous = await connectLines(daemon.rpcPort);
    clients.push(anonymous);
    anonymous.call({ jsonrpc: '2.0', method: 'subscriptions.add', params: ['spot-1'] });
    anonymous.call({ jsonrpc: '2.0', method: 'ping', id: 1 });
    expect(await anonymous.next()).toEqual({ jsonrpc: '2.0', result: 'pong', id: 1 });
    const logPost = await fetch(`${daemon.baseUrl}/api/v1/logs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ key: 'boot', value: 'started' }),
    });
    expect(logPost.status).toBe(401);
    const notices = (await call('GET', '/notifications')).body.filter((n: { key: string }) =>
      n.key.startsWith('untrusted-client:'),
    );
    expect(
      notices.map((n: { key: string; message: string }) => [n.key, n.message.includes('auth.trustedNetworks')]),
    ).toEqual([['untrusted-client:127.0.0.1', true]]);

    // 1. A previewStop and a forceStop queued between two heartbeats: one per answer, both arrive.
    expect((await call('PUT', '/subsystems/spot-1/action', { type: 'previewStop' })).status).toBe(202);
    expect((await call('PUT', '/subsystems/spot-1/action', { type: 'forceStop' })).status).toBe(202);
    expect((await firstMessage('spot-1')).type).toBe('previewStop');
    expect((await firstMessage('spot-1')).type).toBe('forceStop');
    expect(await firstMessage('spot-1')).toBeUndefined();

    // 2 and 3. An image played on a spot: the command names it in data.video.self, and its link
    // downloads without any header; a tampered link is 401.
    const bytes = pngBytes(1280, 720, 2048);
    const upload = await fetch(`${daemon.baseUrl}/api/v1/objects/cms-media/poster.png/content`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${session}`, 'content-length': String(bytes.length) },
      body: bytes,
    });
    const image = (await upload.json()) as { _id: number };
    expect((await call('PUT', '/subsystems/spot-2/action', { type: 'forcePlay', objectId: image._id })).status).toBe(
      202,
    );
    const play = await firstMessage('spot-2');
    const playable = play.payload.playable;
    expect(JSON.parse(playable.command).data.video.self).toBe(`api/v1/objects/${image._id}`);
    const [details] = playable.objectsDetails;
    expect(details?.metadata.mediaInfo).toMatchObject({ width: 1280, height: 720 });
    const link = new URL(details?._links.get ?? '');
    expect(link.host).toBe('pms');
    const got = await fetch(`${daemon.baseUrl}${link.pathname}${link.search}`);
    expect(got.status).toBe(200);
    expect(sha256Of(new Uint8Array(await got.arrayBuffer()))).toBe(sha256Of(bytes));
    const tampered = `${link.pathname}${link.search.replace(/signature=./, (s) => `${s.slice(0, -1)}${s.endsWith('A') ? 'B' : 'A'}`)}`;
    expect((await fetch(`${daemon.baseUrl}${tampered}`)).status).toBe(401);

    // 4. A fleet connection (token, id-less subscription to the container and all its players): an
    // event of the container for its players arrives once per player, each naming its player.
    const fleet = await connectLines(daemon.rpcPort);
    clients.push(fleet);
    fleet.call({ jsonrpc: '2.0', method: 'auth', params: [token], id: 1 });
    expect(await fleet.next()).toEqual({ jsonrpc: '2.0', result: true, id: 1 });
    fleet.call({ jsonrpc: '2.0', method: 'subscriptions.add', params: ['wall', 'spot-1', 'spot-2'] });
    fleet.call({ jsonrpc: '2.0', method: 'ping', id: 2 });
    expect(await fleet.next()).toEqual({ jsonrpc: '2.0', result: 'pong', id: 2 });
    const flash = (
      await call('POST', '/events', {
        subsystemExternalId: 'wall',
        externalRef: 'flash',
        command: 'FLASH',
        eventPlayer: true,
      })
    ).body;
    expect((await call('POST', `/events/${flash._id}/trigger`, {})).body.deliveredTo).toEqual(['spot-1', 'spot-2']);
    const lines = [await fleet.next(), await fleet.next()] as Array<{
      method: string;
      params: Record<string, unknown>;
    }>;
    expect(lines.map((l) => [l.method, l.params.subsystemExternalId, l.params.command])).toEqual([
      ['schedule.item.start', 'spot-1', 'FLASH'],
      ['schedule.item.start', 'spot-2', 'FLASH'],
    ]);
    expect(fleet.waiting).toBe(0);
  });
});
