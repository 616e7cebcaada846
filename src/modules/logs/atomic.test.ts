import { describe, expect, it } from 'bun:test';
import { rowCount } from '../../../tests/helpers/app';
import { writePlatformLog } from '../../core/platform-log';
import { logsApp as setup } from './test-support';

/** Makes queueing a delivery of one event type fail, as a full disk or a broken outbox would. */
function breakOutbox(sqlite: { run(sql: string): unknown }, eventType: string) {
  sqlite.run(
    `CREATE TRIGGER outbox_down BEFORE INSERT ON webhook_deliveries WHEN NEW.event_type = '${eventType}'
     BEGIN SELECT RAISE(ABORT, 'outbox down'); END`,
  );
}

async function withWebhook() {
  const t = setup();
  const hook = await t.call('POST', '/webhook', {
    as: 'admin',
    body: { displayName: 'all', url: 'http://receiver.invalid/hook', events: ['log.*'] },
  });
  expect(hook.status).toBe(201);
  return t;
}

describe('log writes and their webhook events commit together (§10 rule 3)', () => {
  it('a delete whose audit entry cannot be queued keeps the entry and publishes nothing', async () => {
    const t = await withWebhook();
    const made = await t.post({ value: 'kept' });
    const seen = t.events.length;
    breakOutbox(t.deps.sqlite, 'log.created');
    const res = await t.call('DELETE', `/logs/${made.body._id}`, { as: 'operator' });
    // The trigger's RAISE is a constraint failure, which the error plugin answers as 409.
    expect(res.status).toBe(409);
    expect((await t.call('GET', `/logs/${made.body._id}`, { as: 'admin' })).body.value).toBe('kept');
    expect(t.events.slice(seen).filter((e) => e.type.startsWith('log.'))).toEqual([]);
    expect(rowCount(t, 'webhook_deliveries', "event_type = 'log.deleted'")).toBe(0);
  });

  it('writePlatformLog on its own stores the entry and its delivery together', async () => {
    const t = await withWebhook();
    const entries = rowCount(t, 'logs');
    writePlatformLog(t.deps, { category: 'system', key: 'k', value: 'stored' });
    expect(rowCount(t, 'logs')).toBe(entries + 1);
    expect(rowCount(t, 'webhook_deliveries', "event_type = 'log.created'")).toBeGreaterThan(0);
    breakOutbox(t.deps.sqlite, 'log.created');
    const seen = t.events.length;
    expect(() => writePlatformLog(t.deps, { category: 'system', key: 'k', value: 'lost' })).toThrow('outbox down');
    expect(rowCount(t, 'logs')).toBe(entries + 1);
    expect(t.events.length).toBe(seen);
  });
});
