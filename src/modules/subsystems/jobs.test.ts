import { describe, expect, it } from 'bun:test';
import { subsystemMessages } from '../../db/schema';
import { queueMessage } from './actions';
import { subsystemJobs } from './jobs';
import { subsystemApp as setup } from './test-support';

describe('subsystem jobs', () => {
  it('schedules the hourly prune of delivered and expired messages older than 24 h; queued ones stay', async () => {
    const t = setup();
    const { body } = await t.create({ externalId: 'media' });
    const noProbe = { http: async () => false, tcp: async () => false, lookup: async () => [] };
    t.deps.scheduler.install(subsystemJobs(t.deps, noProbe));
    try {
      expect(t.deps.scheduler.names()).toContain('subsystems.messages-prune');
      queueMessage(t.deps, body._id, { type: 'identify', payload: {} });
      await t.beat('media');
      queueMessage(t.deps, body._id, { type: 'identify', payload: {} });
      const waiting = queueMessage(t.deps, body._id, { type: 'identify', payload: {} });
      t.deps.db
        .update(subsystemMessages)
        .set({ expiresAt: Date.parse('2026-01-20T00:00:00.000Z') })
        .run();
      t.clock.advance(24 * 3600_000);
      await t.deps.scheduler.runNow('subsystems.messages-prune');
      expect(t.deps.db.select().from(subsystemMessages).all()).toHaveLength(3);
      t.clock.advance(1);
      await t.deps.scheduler.runNow('subsystems.messages-prune');
      expect(t.deps.db.select().from(subsystemMessages).all()).toHaveLength(2);
      expect(
        t.deps.db
          .select()
          .from(subsystemMessages)
          .all()
          .map((m) => m.state),
      ).toEqual(['queued', 'queued']);
      expect(t.deps.db.select().from(subsystemMessages).all()[1]?.uuid).toBe(waiting.uuid);
    } finally {
      await t.deps.scheduler.stopAll();
    }
  });
});
