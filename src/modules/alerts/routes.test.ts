import { describe, expect, it } from 'bun:test';
import { auditEntries, rowCount } from '../../../tests/helpers/app';
import { putSettingGroup } from '../../core/settings';
import { alertsApp, errorBody, T0, validation } from './test-support';

const alertAudit = (t: Parameters<typeof auditEntries>[0]) =>
  auditEntries(t)
    .map((e) => e.key)
    .filter((k) => k.startsWith('alert.'));

describe('POST/PUT /alerts (upsert)', () => {
  it('creates a variable rule (201 + Location) with the defaults and the variable fields filled in', async () => {
    const t = await alertsApp();
    const res = await t.create({ displayName: ' Too hot ', variable: t.temp._id, operator: '>', value: 90 });
    expect(res.status).toBe(201);
    expect(res.headers.get('location')).toBe(`/api/v1/alerts/${res.body._id}`);
    expect(res.body).toEqual({
      _id: res.body._id,
      _createdAt: T0,
      _updatedAt: T0,
      _links: { self: `/api/v1/alerts/${res.body._id}`, history: `/api/v1/alerts/history?alertId=${res.body._id}` },
      displayName: 'Too hot',
      description: '',
      type: 'variable',
      systemKind: null,
      variable: t.temp._id,
      subsystemId: t.media._id,
      subsystemExternalId: 'media',
      variableDisplayName: 'Temperature',
      operator: '>',
      value: '90',
      delaySeconds: 0,
      message: '{alert}: {variable} is {value}',
      criticality: 'warning',
      lifeCycle: 'once',
      repeatIntervalSeconds: 900,
      lock: false,
      isLocked: false,
      recovery: true,
      log: true,
      active: true,
      inactiveReason: null,
      destinations: [],
      snoozedUntil: null,
      state: 'ok',
      firingSince: null,
      lastFiredAt: null,
      lastRecoveredAt: null,
      openIncidents: 0,
    });
    expect(t.emitted('alert.created')).toEqual([{ _id: res.body._id, changed: expect.any(Array) }]);
    expect(alertAudit(t)).toEqual(['alert.created']);
  });

  it('names the variable by externalRef with subsystemExternalId; aliases Log/Active, criticality 1-4', async () => {
    const t = await alertsApp();
    const res = await t.create({
      displayName: 'Cold',
      variable: 'temp',
      subsystemExternalId: 'media',
      operator: '<',
      value: '5',
      criticality: 4,
      Log: 'false',
      Active: false,
      lock: 'true',
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      variable: t.temp._id,
      criticality: 'critical',
      log: false,
      active: false,
      lock: true,
      state: 'inactive',
    });
  });

  it('with an existing _id updates (200), read-only fields ignored', async () => {
    const t = await alertsApp();
    const a = await t.rule();
    const res = await t.call('PUT', '/alerts', {
      as: 'operator',
      body: { ...a, displayName: 'Very hot', value: '95', state: 'firing', openIncidents: 7, isLocked: true },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ _id: a._id, displayName: 'Very hot', value: '95', state: 'ok', isLocked: false });
    expect(t.emitted('alert.updated')).toEqual([{ _id: a._id, changed: ['displayName', 'value'] }]);
  });

  it('with an _id that names no rule creates one (201, a new _id), or answers the create’s 400', async () => {
    const t = await alertsApp();
    const a = await t.rule();
    const before = rowCount(t, 'alert_rules');
    const missing = await t.call('POST', '/alerts', { as: 'operator', body: { _id: 9999, displayName: 'x' } });
    expect(missing.body).toEqual(validation(missing, '/variable', 'is required'));
    expect(rowCount(t, 'alert_rules')).toBe(before);
    const { _id, _links, _createdAt, _updatedAt, ...fields } = a;
    const made = await t.call('PUT', '/alerts', {
      as: 'operator',
      body: { ...fields, _id: 9999, displayName: 'Copy' },
    });
    expect(made.status).toBe(201);
    expect(made.body._id).not.toBe(9999);
    expect(made.body._id).not.toBe(a._id);
    expect(made.headers.get('location')).toBe(`/api/v1/alerts/${made.body._id}`);
    expect(rowCount(t, 'alert_rules')).toBe(before + 1);
    expect((await t.call('GET', `/alerts/${a._id}`, { as: 'admin' })).body.displayName).toBe(a.displayName);
  });

  it('refuses every bad input at its path and stores nothing', async () => {
    const t = await alertsApp();
    const before = rowCount(t, 'alert_rules');
    const base = { displayName: 'x', variable: t.temp._id, operator: '>', value: '1' };
    const cases: Array<[Record<string, unknown>, string, string]> = [
      [{ ...base, displayName: undefined }, '/displayName', 'is required'],
      [{ ...base, variable: undefined }, '/variable', 'is required'],
      [{ ...base, operator: undefined }, '/operator', 'is required'],
      [{ ...base, value: undefined }, '/value', 'is required'],
      [{ ...base, operator: '=~' }, '/operator', 'must be one of: ==, !=, >, >=, <, <=, contains, !contains, matches'],
      [{ ...base, value: 'hot' }, '/value', 'must be numeric for the operator >'],
      [
        { ...base, operator: 'matches', value: '(' },
        '/value',
        'must be a valid regular expression of at most 200 characters',
      ],
      [
        { ...base, operator: 'matches', value: 'a'.repeat(201) },
        '/value',
        'must be a valid regular expression of at most 200 characters',
      ],
      [{ ...base, variable: 9999 }, '/variable', 'does not exist'],
      [{ ...base, variable: 'nope', subsystemExternalId: 'media' }, '/variable', 'does not exist'],
      [{ ...base, variable: 'temp' }, '/subsystemExternalId', 'is required with a variable externalRef'],
      [{ ...base, criticality: 'fatal' }, '/criticality', 'must be one of: info, warning, error, critical (or 1 to 4)'],
      [{ ...base, criticality: 5 }, '/criticality', 'must be one of: info, warning, error, critical (or 1 to 4)'],
      [{ ...base, delaySeconds: 86401 }, '/delaySeconds', 'must be an integer from 0 to 86400'],
      [{ ...base, repeatIntervalSeconds: 59 }, '/repeatIntervalSeconds', 'must be an integer from 60 to 86400'],
      [{ ...base, lifeCycle: 'always' }, '/lifeCycle', 'must be one of: once, repeat'],
      [{ ...base, message: 'm'.repeat(1001) }, '/message', 'must be a string of at most 1000 characters'],
      [{ ...base, destinations: [{ method: ['notification'] }] }, '/destinations/0', 'needs a user or a role'],
      [{ ...base, destinations: [{ user: 999, method: ['notification'] }] }, '/destinations/0/user', 'does not exist'],
      [
        { ...base, destinations: [{ role: 'ghosts', method: ['notification'] }] },
        '/destinations/0/role',
        'does not exist',
      ],
      [
        { ...base, destinations: [{ role: 'operator', method: ['email'] }] },
        '/destinations/0/method',
        'email needs the smtp settings',
      ],
      [{ ...base, snoozedUntil: 'tomorrow' }, '/snoozedUntil', 'must be an ISO-8601 time with Z or an offset'],
      [
        { ...base, snoozedUntil: '2026-02-30T00:00:00Z' },
        '/snoozedUntil',
        'must be an ISO-8601 time with Z or an offset',
      ],
      [
        { ...base, snoozedUntil: '2026-01-15T24:00:00Z' },
        '/snoozedUntil',
        'must be an ISO-8601 time with Z or an offset',
      ],
    ];
    for (const [body, path, message] of cases) {
      const res = await t.create(body);
      expect({ body, status: res.status, error: res.body }).toEqual({
        body,
        status: 400,
        error: validation(res, path, message),
      });
    }
    expect(rowCount(t, 'alert_rules')).toBe(before);
    expect(t.emitted('alert.created')).toEqual([]);
  });

  it('stores destinations by user or role (name or _id); email accepted once smtp is set', async () => {
    const t = await alertsApp();
    const operatorRole = (await t.call('GET', '/roles/operator', { as: 'admin' })).body._id;
    putSettingGroup(t.deps, 'smtp', { host: 'mail.local', port: 25 });
    const a = await t.rule({
      destinations: [
        { role: 'operator', method: ['notification', 'email'] },
        { role: operatorRole, method: ['notification'] },
      ],
    });
    expect(a.destinations).toEqual([
      { role: operatorRole, method: ['notification', 'email'] },
      { role: operatorRole, method: ['notification'] },
    ]);
  });
});

describe('GET /alerts and /alerts/{id}', () => {
  it('lists system rules and variable rules; filters type, state, active, subsystemExternalId, variable', async () => {
    const t = await alertsApp();
    const hot = await t.rule();
    const off = await t.rule({ displayName: 'Off', active: false });
    const all = await t.call('GET', '/alerts', { as: 'viewer' });
    expect(all.status).toBe(200);
    expect(all.headers.get('x-total-count')).toBe('10');
    expect(
      all.body.filter((a: { type: string }) => a.type === 'system').map((a: { systemKind: string }) => a.systemKind),
    ).toEqual([
      'subsystem-offline',
      'variable-health',
      'backup-failed',
      'storage-low',
      'license-expiry',
      'webhook-disabled',
      'schedule-missed',
      'asset-health',
    ]);
    const ids = async (query: Record<string, string>) =>
      (await t.call('GET', '/alerts', { as: 'viewer', query })).body.map((a: { _id: number }) => a._id);
    expect(await ids({ type: 'variable' })).toEqual([hot._id, off._id]);
    expect(await ids({ active: 'false' })).toEqual([off._id]);
    expect(await ids({ state: 'inactive' })).toEqual([off._id]);
    expect(await ids({ subsystemExternalId: 'media' })).toEqual([hot._id, off._id]);
    expect(await ids({ subsystemExternalId: 'nope' })).toEqual([]);
    expect(await ids({ variable: String(t.temp._id) })).toEqual([hot._id, off._id]);
    expect(await ids({ variable: 'temp', subsystemExternalId: 'media' })).toEqual([hot._id, off._id]);
    await t.write('95');
    expect(await ids({ state: 'firing' })).toEqual([hot._id]);
    expect(await ids({ type: 'variable', limit: '1' })).toEqual([hot._id]);
  });

  it('reads one; 404 for unknown', async () => {
    const t = await alertsApp();
    const a = await t.rule();
    expect((await t.call('GET', `/alerts/${a._id}`, { as: 'viewer' })).body).toEqual(a);
    const res = await t.call('GET', '/alerts/9999', { as: 'viewer' });
    expect(res.body).toEqual(errorBody(res, 404, 'not_found', 'alert 9999 not found'));
  });
});

describe('PUT/PATCH/DELETE /alerts/{id}', () => {
  it('updates the present fields only; 404 for unknown', async () => {
    const t = await alertsApp();
    const a = await t.rule();
    const res = await t.call('PATCH', `/alerts/${a._id}`, { as: 'operator', body: { criticality: 'error' } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ criticality: 'error', value: '90', operator: '>' });
    const bad = await t.call('PUT', `/alerts/${a._id}`, { as: 'operator', body: { operator: '<', value: 'x' } });
    expect(bad.body).toEqual(validation(bad, '/value', 'must be numeric for the operator <'));
    expect((await t.read(a._id)).operator).toBe('>');
    const missing = await t.call('PUT', '/alerts/9999', { as: 'operator', body: {} });
    expect(missing.status).toBe(404);
  });

  it('a system rule: condition fields ignored, the allowed fields change; DELETE is 409', async () => {
    const t = await alertsApp();
    const sys = (await t.call('GET', '/alerts', { as: 'admin', query: { type: 'system' } })).body[0];
    const res = await t.call('PUT', `/alerts/${sys._id}`, {
      as: 'operator',
      body: {
        variable: t.temp._id,
        operator: '>',
        value: '1',
        delaySeconds: 5,
        lock: true,
        displayName: 'Offline!',
        criticality: 'critical',
      },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      type: 'system',
      systemKind: 'subsystem-offline',
      variable: null,
      operator: null,
      value: null,
      delaySeconds: 0,
      lock: false,
      displayName: 'Offline!',
      criticality: 'critical',
    });
    const del = await t.call('DELETE', `/alerts/${sys._id}`, { as: 'operator' });
    expect(del.body).toEqual(errorBody(del, 409, 'conflict', 'a system rule cannot be deleted; deactivate it instead'));
    expect((await t.read(sys._id)).displayName).toBe('Offline!');
  });

  it('deletes a variable rule (204, alert.deleted, audit); the history stays; 404 afterwards', async () => {
    const t = await alertsApp();
    const a = await t.rule();
    await t.write('95');
    const res = await t.call('DELETE', `/alerts/${a._id}`, { as: 'operator' });
    expect(res.status).toBe(204);
    expect(res.text).toBe('');
    expect(t.emitted('alert.deleted')).toEqual([{ _id: a._id, changed: [] }]);
    expect(await t.history({ alertId: String(a._id) })).toEqual([
      expect.objectContaining({ state: 'closed', closedReason: 'rule_deleted' }),
    ]);
    expect(t.notices().map((n) => [n.key, n.state])).toEqual([[`alert:${a._id}:${t.temp._id}`, 'cleared']]);
    expect(alertAudit(t)).toEqual(['alert.created', 'alert.deleted']);
    expect((await t.call('DELETE', `/alerts/${a._id}`, { as: 'operator' })).status).toBe(404);
  });
});

describe('GET /alerts/history', () => {
  it('newest first, filters alertId, state, sourceType, from, to; paged with X-Total-Count', async () => {
    const t = await alertsApp();
    putSettingGroup(t.deps, 'alerts', { flapWindowSeconds: 0 });
    const a = await t.rule();
    await t.write('95');
    t.clock.advance(60_000);
    await t.write('20');
    t.clock.advance(60_000);
    await t.write('99');
    const all = await t.call('GET', '/alerts/history', { as: 'viewer' });
    expect(all.headers.get('x-total-count')).toBe('2');
    expect(all.body.map((i: { state: string }) => i.state)).toEqual(['open', 'closed']);
    expect(all.body[1]).toEqual({
      _id: all.body[1]._id,
      alertId: a._id,
      source: { type: 'variable', id: t.temp._id, externalId: 'temp', displayName: 'Temperature' },
      state: 'closed',
      firedAt: T0,
      closedAt: new Date(Date.parse(T0) + 60_000).toISOString(),
      closedReason: 'recovered',
      acknowledgedAt: null,
      acknowledgedBy: null,
      lastValue: '95',
      matchCount: 1,
      notified: true,
      // No destination asks for e-mail (mail/mail.test.ts covers the mail of an incident).
      mail: [],
    });
    const n = async (query: Record<string, string>) => (await t.history(query)).length;
    expect(await n({ state: 'open' })).toBe(1);
    expect(await n({ alertId: String(a._id) })).toBe(2);
    expect(await n({ alertId: '9999' })).toBe(0);
    expect(await n({ sourceType: 'subsystem' })).toBe(0);
    expect(await n({ from: new Date(Date.parse(T0) + 1).toISOString() })).toBe(1);
    expect(await n({ to: T0 })).toBe(1);
    const paged = await t.call('GET', '/alerts/history', { as: 'viewer', query: { limit: '1' } });
    expect(paged.headers.get('link')).toContain('offset=1');
    const bad = await t.call('GET', '/alerts/history', { as: 'viewer', query: { state: 'gone' } });
    expect(bad.status).toBe(400);
  });
});
