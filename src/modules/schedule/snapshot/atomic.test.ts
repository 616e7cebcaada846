import { describe, expect, it } from 'bun:test';
import { auditEntries, recordEvents, rowCount } from '../../../../tests/helpers/app';
import { scheduleApp } from '../routes-test-support';
import { markDependencyChanged } from './change-clock';
import { loadSchedule } from './load';

/** Makes queueing a delivery of one event type fail, as a full disk or a broken outbox would. */
function breakOutbox(sqlite: { run(sql: string): unknown }, eventType: string) {
  sqlite.run(
    `CREATE TRIGGER outbox_down BEFORE INSERT ON webhook_deliveries WHEN NEW.event_type = '${eventType}'
     BEGIN SELECT RAISE(ABORT, 'outbox down'); END`,
  );
}

describe('schedule writes and their events commit together (§10 rule 3)', () => {
  it.each(['zone.updated', 'schedule.changed'])(
    'a zone update whose %s cannot be queued changes nothing and publishes nothing',
    async (failing) => {
      const t = await scheduleApp();
      const hook = await t.call('POST', '/webhook', {
        as: 'admin',
        body: { displayName: 'all', url: 'http://receiver.invalid/hook', events: ['*'] },
      });
      expect(hook.status).toBe(201);
      const zone = await t.call('POST', '/zones', { as: 'operator', body: { displayName: 'Lobby' } });
      expect(zone.status).toBe(201);
      const seen = recordEvents(t, (e) => e.type === 'zone.updated' || e.type === 'schedule.changed');
      breakOutbox(t.deps.sqlite, failing);
      const res = await t.call('PATCH', `/zones/${zone.body._id}`, { as: 'operator', body: { displayName: 'Hall' } });
      // The trigger's RAISE is a constraint failure, which the error plugin answers as 409.
      expect(res.status).toBe(409);
      expect((await t.call('GET', `/zones/${zone.body._id}`, { as: 'viewer' })).body.displayName).toBe('Lobby');
      expect(seen).toEqual([]);
      expect(auditEntries(t).map((e) => e.key)).not.toContain('zone.updated');
      expect(rowCount(t, 'webhook_deliveries', "event_type IN ('zone.updated', 'schedule.changed')")).toBe(1);
    },
  );
});

describe('the schedule snapshot and a rolled-back transaction', () => {
  it('a snapshot read inside a transaction that rolls back is not kept for the version', async () => {
    const t = await scheduleApp();
    const seenInside: boolean[] = [];
    expect(() =>
      t.deps.sqlite.transaction(() => {
        t.deps.sqlite.run(
          "INSERT INTO schedule_zones (id, display_name, description, members, color, created_at, updated_at) VALUES (77, 'Ghost', '', '[]', '#000000', 0, 0)",
        );
        // A new version whose re-plan reads the schedule inside the transaction.
        markDependencyChanged(t.deps);
        seenInside.push(loadSchedule(t.deps).zones.has(77));
        throw new Error('rolled back');
      })(),
    ).toThrow('rolled back');
    expect(seenInside).toEqual([true]);
    expect(loadSchedule(t.deps).zones.has(77)).toBe(false);
  });
});
