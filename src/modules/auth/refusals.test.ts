/**
 * Refusals of clients that send no credential from an untrusted network are made visible: a
 * security warning and a notification naming the address and the setting, at most once an hour.
 */
import { afterEach, describe, expect, it } from 'bun:test';
import { makeTestApp, type TestApp } from '../../../tests/helpers/app';
import { rpcApp, stopRpcApps } from '../../rpc/test-support';

afterEach(stopRpcApps);

const notices = async (t: TestApp) =>
  (await t.call('GET', '/notifications', { as: 'admin' })).body.filter((n: { key: string }) =>
    n.key.startsWith('untrusted-client:'),
  );
const warnings = (t: TestApp) =>
  t.deps.sqlite
    .query<{ value: string }, []>("SELECT value FROM logs WHERE key = 'auth.untrusted_refused' ORDER BY id")
    .all()
    .map((r) => r.value);

describe('refusals of untrusted clients without a credential', () => {
  it('HTTP: a 401 as before, plus one warning and one notification per address per hour', async () => {
    const t = makeTestApp({ config: { trustedNetworks: ['192.168.1.0/24'] } });
    const post = () => t.call('POST', '/logs', { from: '10.0.0.7', body: { key: 'boot', value: 'up' } });
    expect((await post()).status).toBe(401);
    expect((await post()).status).toBe(401);
    expect(warnings(t)).toEqual([
      'HTTP POST /api/v1/logs from 10.0.0.7 was refused: no credential, and 10.0.0.7 is not on a trusted network; ' +
        'trust its network in the setting auth.trustedNetworks (or the environment variable PMS_TRUSTED_NETWORKS), ' +
        'or give the client an integration token',
    ]);
    const [notice] = await notices(t);
    expect(notice).toMatchObject({
      key: 'untrusted-client:10.0.0.7',
      severity: 'warning',
      title: 'A client at 10.0.0.7 is refused: no credential, untrusted network',
    });
    // A trusted address, a bad credential and a public route are not this case.
    expect((await t.call('POST', '/logs', { from: '192.168.1.5', body: { key: 'k' } })).status).toBe(201);
    expect((await t.call('GET', '/subsystems', { from: '10.0.0.8', token: 'pms_nope' })).status).toBe(401);
    expect((await t.call('GET', '/health', { from: '10.0.0.9' })).status).toBe(200);
    expect(warnings(t)).toHaveLength(1);
    t.clock.advance(3_600_000);
    await post();
    expect(warnings(t)).toHaveLength(2);
  });

  it('at most once an hour of elapsed time, whatever the wall clock does', async () => {
    const t = makeTestApp({ config: { trustedNetworks: ['192.168.1.0/24'] } });
    const post = () => t.call('POST', '/logs', { from: '10.0.0.7', body: { key: 'boot', value: 'up' } });
    await post();
    // NTP steps the clock two hours ahead: the client retrying every second is not shown again.
    t.clock.setWall(t.clock.now() + 2 * 3_600_000);
    await post();
    expect(warnings(t)).toHaveLength(1);
    // Stepped back five hours: an hour later it is shown again, not six hours later.
    t.clock.setWall(t.clock.now() - 5 * 3_600_000);
    t.clock.advance(3_600_000);
    await post();
    expect(warnings(t)).toHaveLength(2);
  });

  it('TCP push: a subscription without auth from an untrusted address is made visible', async () => {
    const t = rpcApp({ config: { trustedNetworks: [] } });
    const c = await t.client();
    c.call({ jsonrpc: '2.0', method: 'subscriptions.add', params: ['media-1'] });
    c.call({ jsonrpc: '2.0', method: 'ping', id: 2 });
    // No id: no answer to the subscription; the ping answers once it has been handled.
    expect(await c.next()).toMatchObject({ id: 2, result: 'pong' });
    expect(warnings(t)[0]).toStartWith('TCP push subscriptions.add from 127.0.0.1 was refused');
    expect((await notices(t)).map((n: { key: string }) => n.key)).toEqual(['untrusted-client:127.0.0.1']);
  });
});
