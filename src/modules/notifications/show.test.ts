import { describe, expect, it } from 'bun:test';
import { at, errorBody, notificationsApp as setup, T0, validation } from './test-support';

describe('POST|PUT /notifications/show', () => {
  it('creates: 201 + Location, every field with its default, notification.created and .shown', async () => {
    const t = await setup();
    const res = await t.show({ title: 'Lamp hot', _id: 99, count: 7, state: 'cleared', unknown: 1 });
    expect(res.status).toBe(201);
    expect(res.headers.get('location')).toBe(`/api/v1/notifications/${res.body._id}`);
    expect(res.body).toEqual({
      _id: res.body._id,
      _createdAt: T0,
      _updatedAt: T0,
      _links: {
        self: `/api/v1/notifications/${res.body._id}`,
        action: `/api/v1/notifications/${res.body._id}/action`,
      },
      key: null,
      title: 'Lamp hot',
      message: '',
      severity: 'info',
      state: 'shown',
      source: { type: 'token', id: expect.any(Number), externalId: null },
      subsystemId: null,
      subsystemExternalId: null,
      roleIds: [],
      actions: [],
      expiresAt: null,
      count: 1,
      firstShownAt: T0,
      lastShownAt: T0,
      clearedAt: null,
      clearedBy: null,
      lastAction: null,
    });
    expect(res.body._id).not.toBe(99);
    const data = {
      _id: res.body._id,
      key: null,
      severity: 'info',
      title: 'Lamp hot',
      count: 1,
      state: 'shown',
      roleIds: [],
    };
    expect(t.emitted()).toEqual([
      { type: 'notification.created', ...data, changed: [] },
      { type: 'notification.shown', ...data },
    ]);
  });

  it('PUT /notifications/show does the same; warn is read as warning; subsystem by externalId', async () => {
    const t = await setup();
    const res = await t.call('PUT', '/notifications/show', {
      as: 'operator',
      body: {
        title: 'Projector',
        message: 'lamp at 90 %',
        severity: 'warn',
        key: 'lamp:1',
        subsystemExternalId: 'media-1',
        roleIds: [1],
        expiresAt: '2026-01-15T14:00:00+01:00',
        actions: [
          { id: 'docs', label: 'Manual', type: 'link', url: 'https://example.com/lamp', eventId: 4 },
          { id: 'ok', label: 'OK', type: 'clear', clears: 'false' },
          { id: 'cb', label: 'Tell', type: 'callback' },
        ],
      },
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      severity: 'warning',
      key: 'lamp:1',
      subsystemId: t.media._id,
      subsystemExternalId: 'media-1',
      roleIds: [1],
      expiresAt: '2026-01-15T13:00:00.000Z',
      actions: [
        { id: 'docs', label: 'Manual', type: 'link', clears: true, url: 'https://example.com/lamp' },
        { id: 'ok', label: 'OK', type: 'clear', clears: false },
        { id: 'cb', label: 'Tell', type: 'callback', clears: true },
      ],
    });
    expect(res.body._links.subsystem).toBe(`/api/v1/subsystems/${t.media._id}`);
    expect(t.emitted().at(-1)).toMatchObject({ type: 'notification.shown', subsystemExternalId: 'media-1' });
  });

  it('a session caller is the source user; the audit log names the show', async () => {
    const t = await setup();
    const { makeUser, signIn } = await import('../../../tests/helpers/factories');
    const { user, password } = await makeUser(t, 'ann', ['operator']);
    const session = await signIn(t, 'ann', password);
    const res = await t.show({ title: 'Hello' }, { token: session });
    expect(res.body.source).toEqual({ type: 'user', id: user.id, externalId: 'ann' });
    const audit = t.deps.sqlite
      .query<{ key: string; value: string }, []>("SELECT key, value FROM logs WHERE category = 'audit'")
      .all();
    expect(audit).toContainEqual({ key: 'notification.shown', value: `notification ${res.body._id} created` });
  });

  it('raises again by key: count + 1, lastShownAt, title, message and severity replaced; 200', async () => {
    const t = await setup();
    const first = await t.show({ title: 'Lamp hot', message: 'one', severity: 'error', key: 'lamp', roleIds: [1] });
    t.clock.advance(5000);
    const again = await t.call('PUT', '/notifications/show', {
      as: 'operator',
      body: { title: 'Lamp very hot', key: 'lamp' },
    });
    expect(again.status).toBe(200);
    expect(again.headers.get('location')).toBeNull();
    expect(again.body).toMatchObject({
      _id: first.body._id,
      title: 'Lamp very hot',
      message: '',
      severity: 'info',
      count: 2,
      firstShownAt: T0,
      lastShownAt: at(5000),
      _updatedAt: at(5000),
      roleIds: [1],
    });
    expect(t.emitted('notification.shown')).toHaveLength(2);
    expect(t.emitted().at(-1)).toEqual({
      type: 'notification.shown',
      _id: first.body._id,
      key: 'lamp',
      severity: 'info',
      title: 'Lamp very hot',
      count: 2,
      state: 'shown',
      roleIds: [1],
    });
    expect(t.count()).toBe(1);
  });

  it('raising a cleared one shows it again and forgets who cleared it; a stale expiry is dropped', async () => {
    const t = await setup();
    const first = await t.show({ title: 'Lamp', key: 'lamp', expiresAt: at(60_000) });
    t.clock.advance(120_000);
    await t.call('PUT', `/notifications/${first.body._id}/clear`, { as: 'operator' });
    const again = await t.show({ title: 'Lamp', key: 'lamp' });
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({
      state: 'shown',
      count: 2,
      clearedAt: null,
      clearedBy: null,
      expiresAt: null,
      lastShownAt: at(120_000),
    });
  });

  it('without a key every show is a new notification; an empty key counts as none', async () => {
    const t = await setup();
    await t.show({ title: 'A' });
    await t.show({ title: 'A' });
    const third = await t.show({ title: 'A', key: '' });
    expect(third.status).toBe(201);
    expect(third.body.key).toBeNull();
    expect(t.count()).toBe(3);
  });

  it('refuses bad input with the whole error and stores nothing', async () => {
    const t = await setup();
    const six = Array.from({ length: 6 }, (_, i) => ({ id: `a${i}`, label: 'x', type: 'clear' }));
    const cases: Array<[Record<string, unknown>, (res: { headers: Headers }) => unknown]> = [
      [{}, (r) => validation(r, '/title', 'is required')],
      [{ title: '' }, (r) => validation(r, '/title', 'must be a string of 1 to 200 characters')],
      [{ title: 'x'.repeat(201) }, (r) => validation(r, '/title', 'must be a string of 1 to 200 characters')],
      [{ title: '   ' }, (r) => validation(r, '/title', 'must not be blank')],
      [
        { title: 'a', message: 'x'.repeat(4001) },
        (r) => validation(r, '/message', 'must be a string of at most 4000 characters'),
      ],
      [
        { title: 'a', severity: 'fatal' },
        (r) => validation(r, '/severity', 'must be one of: info, warning, error, critical, warn'),
      ],
      [{ title: 'a', key: 'k'.repeat(201) }, (r) => validation(r, '/key', 'must be at most 200 characters')],
      [{ title: 'a', actions: six }, (r) => validation(r, '/actions', 'must have at most 5 entries')],
      [
        { title: 'a', expiresAt: 'tomorrow' },
        (r) => validation(r, '/expiresAt', 'must be an ISO-8601 time with Z or an offset'),
      ],
      [
        { title: 'a', expiresAt: '2026-01-16T10:00:00' },
        (r) => validation(r, '/expiresAt', 'must be an ISO-8601 time with Z or an offset'),
      ],
      [
        { title: 'a', expiresAt: '2026-02-30T10:00:00Z' },
        (r) => validation(r, '/expiresAt', 'must be an ISO-8601 time with Z or an offset'),
      ],
      [
        { title: 'a', expiresAt: '2026-01-16T10:00:00+25:00' },
        (r) => validation(r, '/expiresAt', 'must be an ISO-8601 time with Z or an offset'),
      ],
      [{ title: 'a', roleIds: [1, 999] }, (r) => validation(r, '/roleIds/1', 'names a role that does not exist')],
      [{ title: 'a', subsystemId: 999 }, (r) => errorBody(r, 404, 'not_found', 'subsystem 999 not found')],
      [{ title: 'a', subsystemExternalId: 'nope' }, (r) => errorBody(r, 404, 'not_found', 'subsystem nope not found')],
      [
        { title: 'a', subsystemId: 1, subsystemExternalId: 'dmx' },
        (r) => validation(r, '/subsystemExternalId', 'does not name the subsystem of subsystemId'),
      ],
    ];
    for (const [body, expected] of cases) {
      const res = await t.show(body);
      expect({ body, answer: res.body }).toEqual({ body, answer: expected(res) });
    }
    expect(t.count()).toBe(0);
    expect(t.emitted()).toEqual([]);
  });

  it('refuses bad actions: ids, labels, per-type fields, unknown targets and acknowledge', async () => {
    const t = await setup();
    const action = (a: Record<string, unknown>) => ({ title: 'a', actions: [a] });
    const cases: Array<[Record<string, unknown>, (res: { headers: Headers }) => unknown]> = [
      [
        {
          title: 'a',
          actions: [
            { id: 'x', label: 'A', type: 'clear' },
            { id: 'x', label: 'B', type: 'clear' },
          ],
        },
        (r) => validation(r, '/actions/1/id', 'must be unique in the notification'),
      ],
      [
        action({ id: '', label: 'A', type: 'clear' }),
        (r) => validation(r, '/actions/0/id', 'must be a string of 1 to 64 characters'),
      ],
      [
        action({ id: 'a', label: 'x'.repeat(41), type: 'clear' }),
        (r) => validation(r, '/actions/0/label', 'must be a string of 1 to 40 characters'),
      ],
      [action({ id: 'a', label: '  ', type: 'clear' }), (r) => validation(r, '/actions/0/label', 'must not be blank')],
      [
        action({ id: 'a', label: 'A', type: 'shell' }),
        (r) => validation(r, '/actions/0/type', 'must be one of: link, event, variable, callback, clear, acknowledge'),
      ],
      [
        action({ id: 'a', label: 'A', type: 'link' }),
        (r) => validation(r, '/actions/0/url', 'is required for a link action'),
      ],
      [
        action({ id: 'a', label: 'A', type: 'link', url: 'ftp://example.com/x' }),
        (r) => validation(r, '/actions/0/url', 'must be an http or https URL'),
      ],
      [
        action({ id: 'a', label: 'A', type: 'link', url: 'not a url' }),
        (r) => validation(r, '/actions/0/url', 'must be an http or https URL'),
      ],
      [
        action({ id: 'a', label: 'A', type: 'event' }),
        (r) => validation(r, '/actions/0/eventId', 'is required for an event action'),
      ],
      [
        action({ id: 'a', label: 'A', type: 'event', eventId: 42 }),
        (r) => validation(r, '/actions/0/eventId', 'names an event that does not exist'),
      ],
      [
        action({ id: 'a', label: 'A', type: 'variable', value: '1' }),
        (r) => validation(r, '/actions/0/variableId', 'is required for a variable action'),
      ],
      [
        action({ id: 'a', label: 'A', type: 'variable', variableId: 42, value: '1' }),
        (r) => validation(r, '/actions/0/variableId', 'names a variable that does not exist'),
      ],
      [
        action({ id: 'a', label: 'A', type: 'acknowledge' }),
        (r) => validation(r, '/actions/0/type', 'acknowledge actions are made by the platform only'),
      ],
    ];
    for (const [body, expected] of cases) {
      const res = await t.show(body);
      expect({ body, answer: res.body }).toEqual({ body, answer: expected(res) });
    }
    expect(t.count()).toBe(0);
  });

  it('a rejected raise changes nothing', async () => {
    const t = await setup();
    const first = await t.show({ title: 'Lamp', key: 'lamp' });
    const bad = await t.show({ title: 'Lamp 2', key: 'lamp', roleIds: [999] });
    expect(bad.status).toBe(400);
    expect(await t.read(first.body._id)).toEqual(first.body);
  });
});
