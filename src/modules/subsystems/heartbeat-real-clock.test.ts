/**
 * Heartbeats as the field sends them: monotonic intervals with fractions, uneven gaps, a wall-clock
 * step. Every read and write that builds a subsystem must keep answering (a fractional
 * `heartbeat.intervalMs` once made the subsystem list answer 500 for everyone).
 */
import { describe, expect, it } from 'bun:test';
import { subsystemApp as setup } from './test-support';

const GAPS = [1000.37, 999.81, 1003.2, 1000.000_1, 998.4, 1500.75, 1000.5];

describe('heartbeats on a real clock', () => {
  it('after every heartbeat the list, the read, PATCH, PUT and the upsert answer, with whole milliseconds', async () => {
    const t = setup();
    const { body } = await t.create({ externalId: 'media' });
    await t.beat('media');
    for (const [i, gap] of GAPS.entries()) {
      t.clock.advance(gap);
      if (i === 3) t.clock.setWall(t.clock.now() - 3_600_000);
      await t.beat('media');
      const list = await t.call('GET', '/subsystems', { as: 'viewer' });
      expect(list.status).toBe(200);
      const read = await t.call('GET', `/subsystems/${body._id}`, { as: 'viewer' });
      expect(read.status).toBe(200);
      expect(Number.isInteger(read.body.heartbeat.intervalMs)).toBe(true);
      const patch = await t.call('PATCH', '/subsystems/media', { as: 'admin', body: { description: `p${i}` } });
      expect(patch.status).toBe(200);
      const put = await t.call('PUT', '/subsystems/media', { as: 'admin', body: read.body });
      expect(put.status).toBe(200);
      const upsert = await t.call('POST', '/subsystems', { as: 'admin', body: { externalId: 'media' } });
      expect(upsert.status).toBe(200);
    }
    const final = await t.call('GET', '/subsystems/media', { as: 'viewer' });
    expect(final.body.heartbeat).toMatchObject({ intervalMs: 1000, count: GAPS.length + 1 });
  });
});
