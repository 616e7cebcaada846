import { describe, expect, it } from 'bun:test';
import { makeTestApp, rowCount } from '../../../tests/helpers/app';
import { writePlatformLog } from '../../core/platform-log';

/** Makes queueing a delivery of one event type fail, as a full disk or a broken outbox would. */
function breakOutbox(sqlite: { run(sql: string): unknown }, eventType: string) {
  sqlite.run(
    `CREATE TRIGGER outbox_down BEFORE INSERT ON webhook_deliveries WHEN NEW.event_type = '${eventType}'
     BEGIN SELECT RAISE(ABORT, 'outbox down'); END`,
  );
}

describe('webhook changes and their events commit together (§10 rule 3)', () => {
  it('a create whose event cannot be queued stores nothing and leaves no webhook cached', async () => {
    const t = makeTestApp();
    const hook = (displayName: string) =>
      t.call('POST', '/webhook', {
        as: 'admin',
        body: { displayName, url: 'http://receiver.invalid/hook', events: ['*'] },
      });
    const first = await hook('first');
    expect(first.status).toBe(201);
    breakOutbox(t.deps.sqlite, 'webhook.created');
    // The trigger's RAISE is a constraint failure, which the error plugin answers as 409.
    expect((await hook('second')).status).toBe(409);
    t.deps.sqlite.run('DROP TRIGGER outbox_down');
    expect(rowCount(t, 'webhooks')).toBe(1);
    expect(rowCount(t, 'logs', "key = 'webhook.created'")).toBe(1);
    writePlatformLog(t.deps, { category: 'system', key: 'probe', value: 'after the rollback' });
    const probes = t.deps.sqlite
      .query<{ webhook_id: number }, []>(
        `SELECT webhook_id FROM webhook_deliveries WHERE event_type = 'log.created' AND payload LIKE '%"probe"%'`,
      )
      .all();
    expect(probes.map((p) => p.webhook_id)).toEqual([first.body._id]);
  });
});
