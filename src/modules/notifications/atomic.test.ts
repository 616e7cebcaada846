import { describe, expect, it } from 'bun:test';
import { rowCount } from '../../../tests/helpers/app';
import { notificationsApp } from './test-support';

/** Makes queueing a webhook delivery fail, as a full disk or a broken outbox would. */
function breakOutbox(sqlite: { run(sql: string): unknown }) {
  sqlite.run(
    "CREATE TRIGGER outbox_down BEFORE INSERT ON webhook_deliveries BEGIN SELECT RAISE(ABORT, 'outbox down'); END",
  );
}

describe('notification changes and their webhook events commit together (§10 rule 3)', () => {
  it('a clear whose event cannot be queued is not stored and publishes nothing', async () => {
    const t = await notificationsApp();
    const hook = await t.call('POST', '/webhook', {
      as: 'admin',
      body: { displayName: 'all', url: 'http://receiver.invalid/hook', events: ['notification.*'] },
    });
    expect(hook.status).toBe(201);
    const shown = (await t.show({ title: 'Projector hot' })).body as { _id: number };
    const before = t.events.length;
    breakOutbox(t.deps.sqlite);
    const res = await t.call('PUT', `/notifications/${shown._id}/clear`, { as: 'operator' });
    // The trigger's RAISE is a constraint failure, which the error plugin answers as 409.
    expect(res.status).toBe(409);
    expect(t.events.length).toBe(before);
    expect((await t.read(shown._id)) as Record<string, unknown>).toMatchObject({ state: 'shown', clearedAt: null });
    expect(rowCount(t, 'logs', "key = 'notification.cleared'")).toBe(0);
  });
});
