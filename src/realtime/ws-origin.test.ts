/**
 * The Origin rule of `/api/v1/ws` on a real server (ws-origin.ts): a browser upgrade from another
 * origin, or with `Origin: null`, is refused with 403 and the one error body before any credential
 * counts (even from the trusted network); the same origin and clients sending no Origin connect.
 */
import { describe, expect, it } from 'bun:test';
import { originRefusal } from './ws-origin';
import { type ServedApp, servedPerTest } from './ws-test-support';

const apps = servedPerTest();

function setup(): ServedApp {
  const s = apps.serve();
  return s;
}

const upgradeHeaders = {
  upgrade: 'websocket',
  connection: 'Upgrade',
  'sec-websocket-key': 'dGhlIHNhbXBsZSBub25jZQ==',
  'sec-websocket-version': '13',
};

describe('the Origin of a WebSocket upgrade', () => {
  it.each(['http://evil.example', 'null', 'http://127.0.0.1', 'not a url'])(
    'Origin %s is refused with 403 and the one error body, even from the trusted network',
    async (origin) => {
      const s = setup();
      s.peer = '127.0.0.1';
      const res = await fetch(`http://127.0.0.1:${s.server.port}/api/v1/ws`, {
        headers: { ...upgradeHeaders, origin, authorization: `Bearer ${s.tokenFor('admin')}` },
      });
      expect(res.status).toBe(403);
      expect(await res.json()).toEqual({
        statusCode: 403,
        code: 'forbidden',
        message: 'the Origin of this WebSocket upgrade is not the host it was sent to',
        requestId: res.headers.get('x-request-id'),
      });
      await expect(s.connect({ headers: { origin } })).rejects.toThrow();
      expect(s.deps.wsHub.size).toBe(0);
    },
  );

  it('the same origin connects, and so does a client that sends no Origin', async () => {
    const s = setup();
    s.peer = '127.0.0.1';
    const same = await s.connect({ headers: { origin: `http://127.0.0.1:${s.server.port}` } });
    expect(await same.sync()).toEqual([]);
    const none = await s.connect();
    expect(await none.sync()).toEqual([]);
    expect(s.deps.wsHub.size).toBe(2);
  });
});

describe('originRefusal', () => {
  const upgrade = (host: string, origin?: string) =>
    new Request(`http://${host}/api/v1/ws`, { headers: { host, ...(origin === undefined ? {} : { origin }) } });

  it.each([
    ['pms', 'http://pms'],
    ['pms:80', 'http://pms'],
    ['pms', 'http://pms:80'],
    ['PMS:8080', 'http://pms:8080'],
    ['pms', 'https://pms'],
    ['[::1]:8080', 'http://[::1]:8080'],
    ['pms', undefined],
  ])('Host %s, Origin %s: accepted', (host, origin) => {
    expect(originRefusal(upgrade(host, origin))).toBeNull();
  });

  it.each([
    ['pms:8080', 'http://pms'],
    ['pms', 'http://pms:8080'],
    ['pms', 'http://pms.evil.example'],
    ['pms', 'null'],
    ['pms', 'file:///panel.html'],
    ['[::1]:8080', 'http://[::2]:8080'],
  ])('Host %s, Origin %s: refused', (host, origin) => {
    expect(originRefusal(upgrade(host, origin))).not.toBeNull();
  });
});
