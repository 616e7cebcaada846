import { describe, expect, it } from 'bun:test';
import { allLogText, auditEntries, recordEvents, rowCount } from '../../../tests/helpers/app';
import { errorBody, validationBody } from '../../../tests/helpers/errors';
import { addWebhook, webhookApp } from './test-support';

const URL_RULE = 'must be an absolute http or https URL without a user:password part';
const ADDRESS_RULE = 'names an address webhooks may not reach (see allowPrivateNetwork)';

describe('webhook create and read', () => {
  it('creates with defaults, shows the secret once and only its last 4 characters afterwards', async () => {
    const t = webhookApp();
    const res = await t.call('POST', '/webhook', {
      as: 'admin',
      body: { displayName: ' Ops bridge ', url: 'https://hooks.example.com/in', headers: { 'X-Api-Key': 'k1' } },
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
    expect(list.text).not.toContain('k1');
  });

  it('keeps a client secret of 24 to 64 bytes and refuses any other', async () => {
    const t = webhookApp();
    const own = `whsec_${Buffer.alloc(24, 7).toString('base64')}`;
    const made = await addWebhook(t, { url: 'https://hooks.example.com/', secret: own });
    expect(made.secret).toBe(own);
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
    expect(rowCount(t, 'webhooks')).toBe(1);
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
    expect(many.body).toEqual(validationBody(many, '/headers', 'must have at most 10 headers'));
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

describe('webhook update, delete and rotation', () => {
  it('updates the fields present, ignores the secret and read-only fields, merges headers', async () => {
    const t = webhookApp();
    const made = await addWebhook(t, { url: 'https://hooks.example.com/', headers: { 'x-a': '1', 'x-b': '2' } });
    const res = await t.call('PATCH', `/webhook/${made._id}`, {
      as: 'admin',
      body: {
        displayName: 'Renamed',
        events: ['variable.*'],
        timeoutSeconds: 5,
        headers: { 'x-a': null, 'X-C': '3' },
        secret: 'whsec_ignored',
        state: 'disabled',
        consecutiveFailures: 9,
      },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      displayName: 'Renamed',
      url: 'https://hooks.example.com/',
      events: ['variable.*'],
      timeoutSeconds: 5,
      headerNames: ['x-b', 'X-C'],
      state: 'active',
      consecutiveFailures: 0,
      secretHint: made.secret.slice(-4),
    });
    expect(res.body.secret).toBeUndefined();
    const put = await t.call('PUT', `/webhook/${made._id}`, {
      as: 'admin',
      body: { ...res.body, url: 'https://offline.example.net/x' },
    });
    expect(put.body).toMatchObject({ url: 'https://offline.example.net/x', headerNames: ['x-b', 'X-C'] });
    const refused = await t.call('PATCH', `/webhook/${made._id}`, { as: 'admin', body: { url: 'http://10.0.0.1/' } });
    expect(refused.body).toEqual(validationBody(refused, '/url', ADDRESS_RULE));
    const allowed = await t.call('PATCH', `/webhook/${made._id}`, {
      as: 'admin',
      body: { url: 'http://10.0.0.1/', allowPrivateNetwork: 'true' },
    });
    expect(allowed.body).toMatchObject({ url: 'http://10.0.0.1/', allowPrivateNetwork: true });
    const back = await t.call('PATCH', `/webhook/${made._id}`, { as: 'admin', body: { allowPrivateNetwork: false } });
    expect(back.body).toEqual(validationBody(back, '/url', ADDRESS_RULE));
  });

  it('active false disables by hand and active true turns it back on', async () => {
    const t = webhookApp();
    const made = await addWebhook(t, { url: 'https://hooks.example.com/' });
    const off = await t.call('PATCH', `/webhook/${made._id}`, { as: 'admin', body: { active: false } });
    expect(off.body).toMatchObject({ active: false, state: 'disabled', disabledReason: 'manual' });
    const on = await t.call('PATCH', `/webhook/${made._id}`, { as: 'admin', body: { active: 'true' } });
    expect(on.body).toMatchObject({ active: true, state: 'active', disabledReason: null });
    const inactive = await addWebhook(t, { url: 'https://hooks.example.com/', active: false });
    expect(inactive).toMatchObject({ active: false, state: 'disabled', disabledReason: 'manual' });
  });

  it('deletes with its deliveries', async () => {
    const t = webhookApp();
    const made = await addWebhook(t, { url: 'https://hooks.example.com/' });
    await t.call('PATCH', `/webhook/${made._id}`, { as: 'admin', body: { displayName: 'queue something' } });
    expect(rowCount(t, 'webhook_deliveries')).toBeGreaterThan(0);
    expect((await t.call('DELETE', `/webhook/${made._id}`, { as: 'admin' })).status).toBe(204);
    expect(rowCount(t, 'webhook_deliveries')).toBe(0);
    expect((await t.call('GET', `/webhook/${made._id}`, { as: 'admin' })).status).toBe(404);
  });

  it('rotates the secret: a new one in the answer, never in a read', async () => {
    const t = webhookApp();
    const made = await addWebhook(t, { url: 'https://hooks.example.com/' });
    const res = await t.call('POST', `/webhook/${made._id}/rotateSecret`, { as: 'admin' });
    expect(res.status).toBe(200);
    expect(res.body.secret).toMatch(/^whsec_/);
    expect(res.body.secret).not.toBe(made.secret);
    expect(res.body.secretHint).toBe(res.body.secret.slice(-4));
    expect((await t.call('GET', `/webhook/${made._id}`, { as: 'admin' })).body.secret).toBeUndefined();
  });
});

describe('webhook events, audit and permissions', () => {
  it('emits created, updated and deleted and audits them, never with the secret or header values', async () => {
    const t = webhookApp();
    const events = recordEvents(t, (e) => e.type.startsWith('webhook.'));
    const made = await addWebhook(t, { url: 'https://hooks.example.com/', headers: { 'x-token': 'hidden-value' } });
    const rotated = await t.call('POST', `/webhook/${made._id}/rotateSecret`, { as: 'admin' });
    await t.call('PATCH', `/webhook/${made._id}`, { as: 'admin', body: { timeoutSeconds: 3 } });
    await t.call('DELETE', `/webhook/${made._id}`, { as: 'admin' });
    const id = made._id;
    expect(events.map((e) => [e.type, e.data])).toEqual([
      [
        'webhook.created',
        {
          _id: id,
          changed: [
            'displayName',
            'url',
            'events',
            'subsystemIds',
            'active',
            'headers',
            'timeoutSeconds',
            'allowPrivateNetwork',
          ],
        },
      ],
      ['webhook.updated', { _id: id, changed: ['secret'] }],
      ['webhook.updated', { _id: id, changed: ['timeoutSeconds'] }],
      ['webhook.deleted', { _id: id, changed: [] }],
    ]);
    expect(auditEntries(t)).toEqual([
      {
        key: 'webhook.created',
        value: `webhook ${id} (Receiver) created: displayName, url, events, subsystemIds, active, headers, timeoutSeconds, allowPrivateNetwork`,
        createdBy: 'token:1',
      },
      { key: 'webhook.updated', value: `webhook ${id} (Receiver) updated: secret`, createdBy: 'token:1' },
      { key: 'webhook.updated', value: `webhook ${id} (Receiver) updated: timeoutSeconds`, createdBy: 'token:1' },
      { key: 'webhook.deleted', value: `webhook ${id} (Receiver) deleted`, createdBy: 'token:1' },
    ]);
    const text = allLogText(t) + JSON.stringify(events);
    for (const secret of [made.secret, rotated.body.secret]) expect(text).not.toContain(secret.slice(6, 30));
    expect(text).not.toContain('hidden-value');
  });

  it('is read by viewers, written by admins only; the integration role and operators are refused', async () => {
    const t = webhookApp();
    const made = await addWebhook(t, { url: 'https://hooks.example.com/' });
    expect((await t.call('GET', '/webhook', { as: 'viewer' })).status).toBe(200);
    const op = await t.call('PATCH', `/webhook/${made._id}`, { as: 'operator', body: { displayName: 'x' } });
    expect(op.status).toBe(403);
    const integration = await t.call('GET', '/webhook', { from: '127.0.0.1' });
    expect(integration.status).toBe(403);
    const writer = t.tokenWith(['webhook:write']);
    const create = await t.call('POST', '/webhook', {
      token: writer,
      body: { displayName: 'w', url: 'https://hooks.example.com/' },
    });
    expect(create.status).toBe(201);
  });
});
