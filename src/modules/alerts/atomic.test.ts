import { describe, expect, it } from 'bun:test';
import { auditEntries, rowCount } from '../../../tests/helpers/app';
import { alertsApp } from './test-support';

/** Makes queueing a delivery of one event type fail, as a full disk or a broken outbox would. */
function breakOutbox(sqlite: { run(sql: string): unknown }, eventType: string) {
  sqlite.run(
    `CREATE TRIGGER outbox_down BEFORE INSERT ON webhook_deliveries WHEN NEW.event_type = '${eventType}'
     BEGIN SELECT RAISE(ABORT, 'outbox down'); END`,
  );
}

describe('alert changes and their webhook events commit together (§10 rule 3)', () => {
  it('an update whose event cannot be queued changes nothing, audits nothing and publishes nothing', async () => {
    const t = await alertsApp();
    const hook = await t.call('POST', '/webhook', {
      as: 'admin',
      body: { displayName: 'all', url: 'http://receiver.invalid/hook', events: ['alert.*'] },
    });
    expect(hook.status).toBe(201);
    const rule = await t.rule();
    breakOutbox(t.deps.sqlite, 'alert.updated');
    const res = await t.call('PUT', `/alerts/${rule._id}`, { as: 'operator', body: { displayName: 'Renamed' } });
    // The trigger's RAISE is a constraint failure, which the error plugin answers as 409.
    expect(res.status).toBe(409);
    expect((await t.read(rule._id)).displayName).toBe('Too hot');
    expect(t.emitted('alert.updated')).toEqual([]);
    expect(auditEntries(t).map((e) => e.key)).not.toContain('alert.updated');
    expect(rowCount(t, 'webhook_deliveries', "event_type = 'alert.updated'")).toBe(0);
  });
});
