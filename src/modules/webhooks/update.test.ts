import { describe, expect, it } from 'bun:test';
import { allLogText, auditEntries, recordEvents, rowCount } from '../../../tests/helpers/app';
import { validationBody } from '../../../tests/helpers/errors';
import { addWebhook, webhookApp } from './test-support';

const ADDRESS_RULE = 'names an address webhooks may not reach (see allowPrivateNetwork)';

describe('webhook update, delete and rotation', () => {
  it('a webhook limited to a subsystem deleted since is read and PUT back as it is; a new unknown id is 400', async () => {
    const t = webhookApp();
    const gone = (await t.call('POST', '/subsystems', { as: 'admin', body: { externalId: 'gone' } })).body._id;
    const made = await addWebhook(t, { url: 'https://hooks.example.com/', subsystemIds: [gone] });
    expect((await t.call('DELETE', '/subsystems/gone', { as: 'admin' })).status).toBe(204);
    const read = (await t.call('GET', `/webhook/${made._id}`, { as: 'admin' })).body;
    const put = await t.call('PUT', `/webhook/${made._id}`, { as: 'admin', body: { ...read, displayName: 'Again' } });
    expect(put.status).toBe(200);
    expect(put.body).toMatchObject({ displayName: 'Again', subsystemIds: [gone] });
    const bad = await t.call('PATCH', `/webhook/${made._id}`, { as: 'admin', body: { subsystemIds: [gone, 999] } });
    expect(bad.body).toEqual(validationBody(bad, '/subsystemIds/1', 'names a subsystem that does not exist'));
    expect((await t.call('GET', `/webhook/${made._id}`, { as: 'admin' })).body.subsystemIds).toEqual([gone]);
  });

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
        createdBy: 'test admin',
      },
      { key: 'webhook.updated', value: `webhook ${id} (Receiver) updated: secret`, createdBy: 'test admin' },
      { key: 'webhook.updated', value: `webhook ${id} (Receiver) updated: timeoutSeconds`, createdBy: 'test admin' },
      { key: 'webhook.deleted', value: `webhook ${id} (Receiver) deleted`, createdBy: 'test admin' },
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

describe('a webhook update that changes nothing', () => {
  it('{} or the webhook sent back: 200 with it as it is, _updatedAt kept, no webhook.updated, no audit entry', async () => {
    const t = webhookApp();
    const made = await addWebhook(t, { url: 'https://hooks.example.com/', headers: { 'x-a': '1' } });
    const read = (await t.call('GET', `/webhook/${made._id}`, { as: 'admin' })).body;
    const audits = auditEntries(t).length;
    const events = recordEvents(t);
    t.clock.advance(1000);
    for (const [method, body] of [
      ['PATCH', {}],
      ['PUT', {}],
      ['PUT', read],
      ['PATCH', { displayName: read.displayName, active: true, events: read.events }],
    ] as const) {
      const res = await t.call(method, `/webhook/${made._id}`, { as: 'admin', body });
      expect({ method, status: res.status, body: res.body }).toEqual({ method, status: 200, body: read });
    }
    expect(events).toEqual([]);
    expect(auditEntries(t)).toHaveLength(audits);
    const renamed = await t.call('PATCH', `/webhook/${made._id}`, {
      as: 'admin',
      body: { displayName: 'New', active: true },
    });
    expect(renamed.body._updatedAt).not.toBe(read._updatedAt);
    expect(events.filter((e) => e.type === 'webhook.updated').map((e) => e.data.changed)).toEqual([['displayName']]);
  });
});
