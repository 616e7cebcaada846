import { describe, expect, it } from 'bun:test';
import { makeUser, signIn } from '../../../tests/helpers/factories';
import { at, errorBody, notificationsApp, T0, validation } from './test-support';

async function setup() {
  const t = await notificationsApp();
  const event = (
    await t.call('POST', '/events', {
      as: 'admin',
      body: { subsystemExternalId: 'media-1', externalRef: 'intro', command: 'PLAY intro' },
    })
  ).body;
  const variable = (
    await t.call('POST', '/variables', { as: 'admin', body: { subsystemExternalId: 'media-1', externalRef: 'level' } })
  ).body;
  const withActions = async (actions: unknown[], extra: Record<string, unknown> = {}) =>
    (await t.show({ title: 'Act', key: 'act', actions, ...extra })).body;
  const act = (id: number, body: unknown, as: 'operator' | 'viewer' | 'admin' = 'operator') =>
    t.call('POST', `/notifications/${id}/action`, { as, body });
  return { ...t, event, variable, withActions, act };
}

describe('POST /notifications/:id/action (rule 3)', () => {
  it('event: fires it to the subscribed push connection as /events/{id}/trigger would, then clears', async () => {
    const t = await setup();
    const lines = t.connect(['media-1']);
    const n = await t.withActions([{ id: 'go', label: 'Play intro', type: 'event', eventId: t.event._id }]);
    t.clock.advance(2000);
    const res = await t.act(n._id, { action: 'go' });
    expect(res.status).toBe(200);
    const result = { eventId: t.event._id, firedAt: at(2000), deliveredTo: ['media-1'] };
    expect(res.body.result).toEqual(result);
    expect(res.body.notification).toMatchObject({
      state: 'cleared',
      clearedAt: at(2000),
      lastAction: { action: 'go', at: at(2000), by: expect.stringMatching(/^token:/), result },
    });
    expect(lines.map((l) => JSON.parse(l))).toEqual([
      {
        jsonrpc: '2.0',
        method: 'schedule.item.start',
        params: {
          itemType: 'EVENT',
          command: 'PLAY intro',
          subsystemExternalId: 'media-1',
          externalRef: 'intro',
          itemId: t.event._id,
          zoneId: 1,
          startTime: at(2000),
          endTime: at(2000),
        },
      },
    ]);
    expect(t.emitted('event.triggered')).toHaveLength(1);
    const by = res.body.notification.lastAction.by;
    expect(t.emitted().slice(-2)).toEqual([
      {
        type: 'notification.action',
        _id: n._id,
        key: 'act',
        severity: 'info',
        title: 'Act',
        count: 1,
        state: 'shown',
        roleIds: [],
        action: 'go',
        actionType: 'event',
        by,
        result,
      },
      {
        type: 'notification.cleared',
        _id: n._id,
        key: 'act',
        severity: 'info',
        title: 'Act',
        count: 1,
        roleIds: [],
        state: 'cleared',
        clearedBy: by,
      },
    ]);
  });

  it('variable: a value write with source user, whatever the credential', async () => {
    const t = await setup();
    const n = await t.withActions([
      { id: 'full', label: 'Full', type: 'variable', variableId: t.variable._id, value: 100, clears: false },
    ]);
    const changes: Array<Record<string, unknown>> = [];
    t.deps.bus.subscribe((e) => {
      if (e.type === 'variable.changed') changes.push(e.data);
    });
    const res = await t.act(n._id, { actionId: 'full' });
    expect(res.status).toBe(200);
    expect(res.body.result).toEqual({ variableId: t.variable._id, lastValue: '100', lastValueUpdatedAt: T0 });
    expect(res.body.notification).toMatchObject({
      state: 'shown',
      lastAction: { action: 'full', by: expect.stringMatching(/^token:/) },
    });
    expect(changes).toHaveLength(1);
    expect(changes[0]).toMatchObject({ lastValue: '100', source: 'user' });
    const { password } = await makeUser(t, 'ann', ['operator']);
    const session = await signIn(t, 'ann', password);
    const again = await t.withActions([
      { id: 'half', label: 'Half', type: 'variable', variableId: t.variable._id, value: '50' },
    ]);
    const byAnn = await t.call('POST', `/notifications/${again._id}/action`, {
      token: session,
      body: { action: 'half' },
    });
    expect(byAnn.body.notification).toMatchObject({ state: 'cleared', lastAction: { by: 'user:ann' } });
    expect(changes[1]).toMatchObject({ lastValue: '50', source: 'user' });
    const stored = await t.call('GET', `/variables/${t.variable._id}`, { as: 'admin' });
    expect(stored.body.lastValue).toBe('50');
  });

  it('link only records; callback only emits; clear clears; clears:false keeps it shown', async () => {
    const t = await setup();
    const n = await t.withActions([
      { id: 'open', label: 'Open', type: 'link', url: 'http://example.com/x', clears: false },
      { id: 'tell', label: 'Tell', type: 'callback', clears: 'false' },
      { id: 'done', label: 'Done', type: 'clear', clears: false },
    ]);
    const link = await t.act(n._id, { action: 'open' });
    expect(link.body.result).toEqual({ url: 'http://example.com/x' });
    expect(link.body.notification.state).toBe('shown');
    const callback = await t.act(n._id, { action: 'tell' });
    expect(callback.body.result).toEqual({});
    expect(callback.body.notification).toMatchObject({ state: 'shown', lastAction: { action: 'tell', result: {} } });
    const done = await t.act(n._id, { action: 'done' });
    expect(done.body.notification.state).toBe('cleared');
    expect(t.emitted('notification.action').map((e) => e.action)).toEqual(['open', 'tell', 'done']);
  });

  it('400 without or with an unknown action, 409 when cleared, 404 unknown; nothing recorded', async () => {
    const t = await setup();
    const n = await t.withActions([{ id: 'done', label: 'Done', type: 'clear' }]);
    const none = await t.act(n._id, {});
    expect(none.body).toEqual(validation(none, '/action', 'is required'));
    const unknown = await t.act(n._id, { action: 'nope' });
    expect(unknown.body).toEqual(validation(unknown, '/action', "matches none of this notification's actions"));
    expect((await t.read(n._id)).lastAction).toBeNull();
    await t.call('PUT', `/notifications/${n._id}/clear`, { as: 'operator' });
    const cleared = await t.act(n._id, { action: 'done' });
    expect(cleared.body).toEqual(errorBody(cleared, 409, 'conflict', 'the notification is cleared'));
    const missing = await t.act(404, { action: 'done' });
    expect(missing.body).toEqual(errorBody(missing, 404, 'not_found', 'notification 404 not found'));
    expect(t.emitted('notification.action')).toEqual([]);
  });

  it('409 when its event or variable is gone; the notification stays as it was', async () => {
    const t = await setup();
    const n = await t.withActions([
      { id: 'go', label: 'Go', type: 'event', eventId: t.event._id },
      { id: 'set', label: 'Set', type: 'variable', variableId: t.variable._id, value: 'x' },
    ]);
    await t.call('DELETE', `/events/${t.event._id}`, { as: 'admin' });
    await t.call('DELETE', `/variables/${t.variable._id}`, { as: 'admin' });
    const go = await t.act(n._id, { action: 'go' });
    expect(go.body).toEqual(errorBody(go, 409, 'conflict', `the event ${t.event._id} of this action no longer exists`));
    const set = await t.act(n._id, { action: 'set' });
    expect(set.body).toEqual(
      errorBody(set, 409, 'conflict', `the variable ${t.variable._id} of this action no longer exists`),
    );
    expect(await t.read(n._id)).toEqual(n);
  });

  it('the event runs with the caller: without events:write it is 403 and nothing is recorded', async () => {
    const t = await setup();
    const lines = t.connect(['media-1']);
    const n = await t.withActions([{ id: 'go', label: 'Go', type: 'event', eventId: t.event._id }]);
    const token = t.tokenWith(['notifications:read', 'notifications:write']);
    const res = await t.call('POST', `/notifications/${n._id}/action`, { token, body: { action: 'go' } });
    expect(res.body).toEqual(errorBody(res, 403, 'forbidden', 'this needs the events:write permission'));
    expect(lines).toEqual([]);
    expect(await t.read(n._id)).toEqual(n);
  });

  it('acknowledge actions are made by the platform only and run as a plain record', async () => {
    const t = await setup();
    const { raiseNotification } = await import('./show');
    const alert = raiseNotification(t.deps, {
      key: 'alert:1:temp',
      title: 'Temperature',
      severity: 'critical',
      source: { type: 'alert', id: 1 },
      actions: [{ id: 'ack', label: 'Acknowledge', type: 'acknowledge', clears: false }],
    });
    expect(alert.source).toEqual({ type: 'alert', id: 1, externalId: null });
    const res = await t.act(alert._id, { action: 'ack' });
    expect(res.status).toBe(200);
    expect(t.emitted('notification.action').at(-1)).toMatchObject({ action: 'ack', actionType: 'acknowledge' });
  });
});

describe('variable action values (C: Requests, http/fields.ts jsonText)', () => {
  it('a variable action whose value is a number past the largest double is 400 at it; nothing is shown', async () => {
    const t = await setup();
    const rawBody = `{"title": "Act", "key": "act", "actions": [{"id": "a", "label": "A", "type": "variable", "variableId": ${t.variable._id}, "value": 1e400}]}`;
    const res = await t.call('POST', '/notifications/show', { as: 'operator', rawBody });
    expect(res.body).toEqual(
      validation(res, '/actions/0/value', 'is a number beyond ±1.7976931348623157e308; send it as a string'),
    );
    expect((await t.call('GET', '/notifications', { as: 'operator' })).body).toEqual([]);
  });
});
