import { describe, expect, it } from 'bun:test';
import { auditEntries, rowCount } from '../../../tests/helpers/app';
import { errorBody, validationBody } from '../../../tests/helpers/errors';
import { addWebhook, webhookApp } from './test-support';

const URL_RULE = 'must be an absolute http or https URL without a user:password part';
const ADDRESS_RULE = 'names an address webhooks may not reach (see allowPrivateNetwork)';

describe('webhook create and read', () => {
  it('creates with defaults, shows the secret once and only its last 4 characters afterwards', async () => {
    const t = webhookApp();
    const res = await t.call('POST', '/webhook', {
      as: 'admin',
      body: { displayName: ' Ops bridge ', url: 'https://hooks.example.com/in', headers: { 'X-Api-Key': 'api-key-1' } },
    });
    expect(res.status).toBe(201);
    expect(res.headers.get('location')).toBe(`/api/v1/webhook/${res.body._id}`);
    const secret: string = res.body.secret;
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(secret.slice(6), 'base64').length).toBe(32);
    expect(res.body).toMatchObject({
      displayName: 'Ops bridge',
      url: 'https://hooks.example.com/in',
      events: ['*'],
      subsystemIds: [],
      active: true,
      secretHint: secret.slice(-4),
      headerNames: ['X-Api-Key'],
      timeoutSeconds: 10,
      allowPrivateNetwork: false,
      state: 'active',
      disabledReason: null,
      consecutiveFailures: 0,
      lastDeliveryAt: null,
      lastSuccessAt: null,
      _links: { self: `/api/v1/webhook/${res.body._id}`, deliveries: `/api/v1/webhook/${res.body._id}/deliveries` },
    });
    expect(res.body.headers).toBeUndefined();
    const read = await t.call('GET', `/webhook/${res.body._id}`, { as: 'viewer' });
    expect(read.status).toBe(200);
    expect(read.body.secret).toBeUndefined();
    expect(read.body.headerNames).toEqual(['X-Api-Key']);
    const list = await t.call('GET', '/webhook', { as: 'admin' });
    expect(list.headers.get('x-total-count')).toBe('1');
    expect(list.text).not.toContain(secret.slice(6));
    expect(list.text).not.toContain('api-key-1');
  });

  it('keeps a client secret of 24 to 64 bytes and refuses any other', async () => {
    const t = webhookApp();
    const own = `whsec_${Buffer.alloc(24, 7).toString('base64')}`;
    const made = await addWebhook(t, { url: 'https://hooks.example.com/', secret: own });
    expect(made.secret).toBe(own);
    const unpadded = `whsec_${Buffer.alloc(25, 1).toString('base64').replace(/=+$/, '')}`;
    expect((await addWebhook(t, { url: 'https://hooks.example.com/', secret: unpadded })).secret).toBe(unpadded);
    const rule = 'must be whsec_ followed by the base64 of 24 to 64 bytes';
    for (const secret of [
      Buffer.alloc(32).toString('base64'),
      `whsec_${Buffer.alloc(16).toString('base64')}`,
      `whsec_${Buffer.alloc(65).toString('base64')}`,
      'whsec_not*base64',
    ]) {
      const res = await t.call('POST', '/webhook', {
        as: 'admin',
        body: { displayName: 'x', url: 'https://hooks.example.com/', secret },
      });
      expect(res.body).toEqual(validationBody(res, '/secret', rule));
    }
    expect(rowCount(t, 'webhooks')).toBe(2);
  });

  it('refuses bad URLs and refused addresses, literal or resolved, and accepts a name that does not resolve', async () => {
    const t = webhookApp();
    const post = (url: string, allowPrivateNetwork = false) =>
      t.call('POST', '/webhook', { as: 'admin', body: { displayName: 'x', url, allowPrivateNetwork } });
    for (const url of ['ftp://hooks.example.com/', 'hooks.example.com/in', 'https://user:pw@hooks.example.com/']) {
      const res = await post(url);
      expect(res.body).toEqual(validationBody(res, '/url', URL_RULE));
    }
    const long = await post(`https://hooks.example.com/${'a'.repeat(2048)}`);
    expect(long.body).toEqual(validationBody(long, '/url', 'must be a string of 1 to 2048 characters'));
    for (const [url, allow] of [
      ['http://169.254.169.254/latest', true],
      ['http://[fe80::1]/', true],
      ['http://224.0.0.1/', true],
      ['http://0.0.0.0:8080/', true],
      ['http://10.0.0.5/', false],
      ['http://127.0.0.1:9000/', false],
      ['http://[::1]:9000/', false],
      ['http://100.64.0.1/', false],
      ['https://intranet.example.com/', false],
      ['https://mixed.example.com/', false],
      ['https://linklocal.example.com/', true],
    ] as const) {
      const res = await post(url, allow);
      expect(res.body).toEqual(validationBody(res, '/url', ADDRESS_RULE));
    }
    expect(rowCount(t, 'webhooks')).toBe(0);
    expect(auditEntries(t)).toEqual([]);
    for (const [url, allow] of [
      ['http://10.0.0.5/', true],
      ['https://intranet.example.com/', true],
      ['http://127.0.0.1:9000/', true],
      ['https://offline.example.net/', false],
      ['https://hooks.example.com/', false],
    ] as const) {
      expect((await post(url, allow)).status).toBe(201);
    }
  });

  it('checks event names against §21, nouns with .* and *', async () => {
    const t = webhookApp();
    const ok = await addWebhook(t, {
      url: 'https://hooks.example.com/',
      events: ['variable.changed', 'subsystem.*', 'settings.changed', 'subsystem.action.queued', 'variable.changed'],
    });
    expect(ok.events).toEqual(['variable.changed', 'subsystem.*', 'settings.changed', 'subsystem.action.queued']);
    for (const events of [
      ['variable.changed', 'variable.exploded'],
      ['*', 'nosuch.*'],
      ['*', 'settings.created'],
    ]) {
      const res = await t.call('POST', '/webhook', {
        as: 'admin',
        body: { displayName: 'x', url: 'https://hooks.example.com/', events },
      });
      expect(res.body).toEqual(validationBody(res, '/events/1', 'is not a known event name'));
    }
  });

  it('refuses forbidden, too many or too long headers, a timeout out of range and an unknown subsystem', async () => {
    const t = webhookApp();
    const post = (body: Record<string, unknown>) =>
      t.call('POST', '/webhook', {
        as: 'admin',
        body: { displayName: 'x', url: 'https://hooks.example.com/', ...body },
      });
    const platform = 'is set by the platform and may not be given';
    for (const name of ['Webhook-Id', 'webhook-signature', 'Content-Type', 'HOST']) {
      const res = await post({ headers: { [name]: 'v' } });
      expect(res.body).toEqual(validationBody(res, `/headers/${name}`, platform));
    }
    const many = await post({ headers: Object.fromEntries(Array.from({ length: 11 }, (_, i) => [`x-h${i}`, 'v'])) });
    expect(many.body).toEqual(validationBody(many, '/headers', 'must have at most 10 entries'));
    const long = await post({ headers: { 'x-long': 'v'.repeat(1025) } });
    expect(long.body).toEqual(validationBody(long, '/headers/x-long', 'must be at most 1024 characters on one line'));
    const bad = await post({ headers: { 'bad name': 'v' } });
    expect(bad.body).toEqual(validationBody(bad, '/headers/bad name', 'is not a valid header name'));
    for (const timeoutSeconds of [0, 31]) {
      const res = await post({ timeoutSeconds });
      expect(res.body).toEqual(validationBody(res, '/timeoutSeconds', 'must be an integer from 1 to 30'));
    }
    const sub = await post({ subsystemIds: [42] });
    expect(sub.body).toEqual(validationBody(sub, '/subsystemIds/0', 'names a subsystem that does not exist'));
    const missing = await t.call('POST', '/webhook', { as: 'admin', body: { url: 'https://hooks.example.com/' } });
    expect(missing.body.detail).toEqual([{ path: '/displayName', message: 'is required' }]);
    expect(rowCount(t, 'webhooks')).toBe(0);
    expect((await post({ headers: { 'x-long': 'v'.repeat(1024) }, timeoutSeconds: 30 })).status).toBe(201);
  });

  it('answers 404 for an unknown webhook on every route', async () => {
    const t = webhookApp();
    for (const [method, path] of [
      ['GET', '/webhook/99'],
      ['PUT', '/webhook/99'],
      ['PATCH', '/webhook/99'],
      ['DELETE', '/webhook/99'],
      ['POST', '/webhook/99/rotateSecret'],
      ['POST', '/webhook/99/test'],
      ['GET', '/webhook/99/deliveries'],
      ['POST', '/webhook/99/deliveries/1/redeliver'],
      ['GET', '/webhook/abc'],
    ] as const) {
      const res = await t.call(method, path, {
        as: 'admin',
        body: method === 'PUT' || method === 'PATCH' ? {} : undefined,
      });
      expect(res.body).toEqual(errorBody(res, 404, 'not_found', `webhook ${path.split('/')[2]} not found`));
    }
  });
});
