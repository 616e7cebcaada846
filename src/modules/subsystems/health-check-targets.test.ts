/**
 * Where a health check may connect (§3 rule 7 with the address policy of §10 rule 6, http/net.ts):
 * link-local, multicast, broadcast and unspecified addresses are refused when written (400 at the
 * field) and at every check after resolving the name (the check fails with a logged reason and
 * nothing is connected to); LAN and loopback targets, the purpose of health checks, stay allowed.
 */
import { describe, expect, it } from 'bun:test';
import { eq } from 'drizzle-orm';
import { subsystems } from '../../db/schema';
import { HealthCheckPoller, type HealthProbe } from './health-checks';
import { subsystemApp as setup, validation } from './test-support';

const REFUSED = 'names a link-local, multicast, broadcast or unspecified address, which is never checked';

/** A probe that answers every connection and records what it was asked; names resolve by `dns`. */
function fakeProbe(dns: Record<string, string[]>) {
  const calls: string[] = [];
  const probe: HealthProbe = {
    http: async (url, _timeout, host) => {
      calls.push(`http ${url}${host === undefined ? '' : ` Host: ${host}`}`);
      return true;
    },
    tcp: async (host, port) => {
      calls.push(`tcp ${host}:${port}`);
      return true;
    },
    lookup: async (name) => {
      const found = dns[name];
      if (!found) throw new Error('ENOTFOUND');
      return found;
    },
  };
  return { probe, calls };
}

describe('health check targets when written', () => {
  it.each([
    'http://169.254.169.254/latest/meta-data/',
    'http://[fe80::1]/',
    'http://224.0.0.1/',
    'http://[ff02::1]:8080/',
    'http://0.0.0.0/',
    'http://255.255.255.255/',
    'http://2852039166/',
    'http://[::ffff:169.254.169.254]/',
  ])('url %s is refused with 400 at /healthCheck/url', async (url) => {
    const t = setup();
    const res = await t.create({ externalId: 'media', healthCheck: { mode: 'http', url } });
    expect(res.body).toEqual(validation(res, '/healthCheck/url', REFUSED));
  });

  it.each(['169.254.169.254', 'fe80::1', '239.255.255.250', 'ff02::1', '::', '255.255.255.255', '0xa9.254.169.254'])(
    'tcp host %s is refused with 400 at /healthCheck/host, on create and on update',
    async (host) => {
      const t = setup();
      const res = await t.create({ externalId: 'media', healthCheck: { mode: 'tcp', host, port: 80 } });
      expect(res.body).toEqual(validation(res, '/healthCheck/host', REFUSED));
      await t.create({ externalId: 'media' });
      const put = await t.call('PUT', '/subsystems/media', {
        as: 'admin',
        body: { healthCheck: { mode: 'tcp', host, port: 80 } },
      });
      expect(put.body).toEqual(validation(put, '/healthCheck/host', REFUSED));
      expect((await t.read('media')).healthCheck).toEqual({ mode: 'heartbeat' });
    },
  );

  it.each([
    { mode: 'http', url: 'http://127.0.0.1:8080/health' },
    { mode: 'http', url: 'http://[::1]/health' },
    { mode: 'http', url: 'https://media.local/health' },
    { mode: 'tcp', host: '192.168.1.20', port: 4352 },
    { mode: 'tcp', host: '10.0.0.5', port: 80 },
    { mode: 'tcp', host: 'localhost', port: 80 },
    { mode: 'tcp', host: '::1', port: 80 },
  ])('LAN and on-box target %o is accepted', async (healthCheck) => {
    const t = setup();
    const res = await t.create({ externalId: 'media', healthCheck });
    expect(res.status).toBe(201);
  });
});

describe('health check targets at each check', () => {
  it('a name now resolving to a link-local address is not connected to; the reason is logged once', async () => {
    const t = setup();
    await t.create({ externalId: 'media', healthCheck: { mode: 'http', url: 'http://media.lan/health' } });
    await t.create({ externalId: 'light', healthCheck: { mode: 'tcp', host: 'light.lan', port: 4352 } });
    const { probe, calls } = fakeProbe({ 'media.lan': ['169.254.169.254'], 'light.lan': ['10.0.0.9', 'ff02::1'] });
    const poller = new HealthCheckPoller(t.deps, probe);
    await poller.pollDue();
    t.clock.advance(30_000);
    await poller.pollDue();
    expect(calls).toEqual([]);
    expect((await t.read('media')).status).toBe('unknown');
    expect((await t.read('light')).status).toBe('unknown');
    expect(t.systemLog().filter((l) => l.startsWith('subsystem.healthcheck'))).toEqual([
      'subsystem.healthcheck: health check of subsystem media not made (target_refused): healthCheck.url names a link-local, multicast, broadcast or unspecified address; not connected',
      'subsystem.healthcheck: health check of subsystem light not made (target_refused): healthCheck.host names a link-local, multicast, broadcast or unspecified address; not connected',
    ]);
  });

  it('a target stored before the rule existed is refused at the check as well', async () => {
    const t = setup();
    const { body } = await t.create({ externalId: 'old' });
    t.deps.db
      .update(subsystems)
      .set({ healthCheck: { mode: 'tcp', host: '169.254.169.254', port: 80, intervalSeconds: 30, timeoutSeconds: 5 } })
      .where(eq(subsystems.id, body._id))
      .run();
    const { probe, calls } = fakeProbe({});
    await new HealthCheckPoller(t.deps, probe).pollDue();
    expect(calls).toEqual([]);
    expect(t.systemLog()).toContain(
      'subsystem.healthcheck: health check of subsystem old not made (target_refused): healthCheck.host names a link-local, multicast, broadcast or unspecified address; not connected',
    );
  });

  it('LAN and loopback names connect to the checked address (http with the name as Host) and count as contact', async () => {
    const t = setup();
    await t.create({ externalId: 'media', healthCheck: { mode: 'http', url: 'http://media.lan:8080/health' } });
    await t.create({ externalId: 'light', healthCheck: { mode: 'tcp', host: 'localhost', port: 4352 } });
    await t.create({ externalId: 'gone', healthCheck: { mode: 'tcp', host: 'gone.lan', port: 1 } });
    const { probe, calls } = fakeProbe({ 'media.lan': ['192.168.1.20'], localhost: ['::1', '127.0.0.1'] });
    await new HealthCheckPoller(t.deps, probe).pollDue();
    expect(calls.sort()).toEqual(['http http://192.168.1.20:8080/health Host: media.lan:8080', 'tcp ::1:4352']);
    expect((await t.read('media')).status).toBe('online');
    expect((await t.read('light')).status).toBe('online');
    expect((await t.read('gone')).status).toBe('unknown');
    expect(t.systemLog()).toContain(
      'subsystem.healthcheck: health check of subsystem gone not made (dns_failed): healthCheck.host names a host that does not resolve',
    );
  });
});
