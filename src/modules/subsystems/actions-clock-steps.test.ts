/**
 * Queued action messages while the wall clock steps (NTP, an operator's date change): their time to
 * live (`subsystems.actionMessageTtlSeconds`) counts elapsed time, so a step of an hour neither
 * expires what was queued a second ago nor keeps a message an hour past its TTL (actions.ts).
 */
import { describe, expect, it } from 'bun:test';
import { sweepExpiredMessages } from './actions';
import { subsystemApp } from './test-support';

const HOUR = 3_600_000;

async function queued() {
  const t = subsystemApp({ start: '2026-01-15T12:00:00.000Z' });
  await t.create({ externalId: 'media' });
  sweepExpiredMessages(t.deps);
  const res = await t.call('PUT', '/subsystems/media/action', { as: 'operator', body: { type: 'identify' } });
  expect(res.status).toBe(202);
  expect(res.body.expiresAt).toBe('2026-01-15T12:01:00.000Z');
  return { t, uuid: res.body.uuid as string };
}

describe('a queued message while the wall clock steps', () => {
  it('stepped ahead an hour, it is still delivered by the next heartbeat, its expiry moved with the clock', async () => {
    const { t, uuid } = await queued();
    t.clock.advance(10_000);
    t.clock.setWall(t.clock.now() + HOUR);
    const beat = await t.beat('media');
    expect(beat.body.messages.map((m: { uuid: string }) => m.uuid)).toEqual([uuid]);
    expect(t.emitted('subsystem.action.expired')).toEqual([]);
  });

  it('stepped ahead an hour, the per-second sweep does not expire it either', async () => {
    const { t, uuid } = await queued();
    t.clock.advance(1000);
    sweepExpiredMessages(t.deps);
    t.clock.setWall(t.clock.now() + HOUR);
    t.clock.advance(1000);
    expect(sweepExpiredMessages(t.deps)).toBe(0);
    const list = await t.call('GET', '/subsystems/media/actions', { as: 'viewer' });
    expect(list.body).toEqual([
      expect.objectContaining({ uuid, state: 'queued', expiresAt: '2026-01-15T13:01:00.000Z' }),
    ]);
  });

  it('stepped back an hour, it expires after its 60 seconds, not an hour later', async () => {
    const { t, uuid } = await queued();
    t.clock.advance(1000);
    sweepExpiredMessages(t.deps);
    t.clock.setWall(t.clock.now() - HOUR);
    for (let i = 0; i < 58; i++) {
      t.clock.advance(1000);
      sweepExpiredMessages(t.deps);
    }
    expect(t.emitted('subsystem.action.expired')).toEqual([]);
    t.clock.advance(1000);
    expect(sweepExpiredMessages(t.deps)).toBe(1);
    expect(t.emitted('subsystem.action.expired').map((d) => d.uuid)).toEqual([uuid]);
  });
});
