import { describe, expect, it } from 'bun:test';
import { tickHealth } from './health';
import { subsystemApp as setup } from './test-support';

async function pair(t: ReturnType<typeof setup>, externalId: string) {
  const res = await t.call('GET', '/variables', {
    as: 'admin',
    query: { subsystemExternalId: externalId, platformManaged: 'true' },
  });
  const [alive, contacted] = res.body as Array<{ _id: number; externalRef: string; lastValue: string }>;
  if (!alive || !contacted) throw new Error('the platform pair is missing');
  return { alive, contacted };
}

describe('is_alive and last_contacted_at (§3 rule 3)', () => {
  it('exist from creation and follow status changes and contact', async () => {
    const t = setup();
    await t.create({ externalId: 'media', healthGracePeriod: 30 });
    const before = await pair(t, 'media');
    expect([before.alive.externalRef, before.alive.lastValue]).toEqual(['is_alive', 'false']);
    expect([before.contacted.externalRef, before.contacted.lastValue]).toEqual(['last_contacted_at', '']);

    const firstContact = new Date(t.clock.now()).toISOString();
    await t.beat('media');
    let now = await pair(t, 'media');
    expect(now.alive.lastValue).toBe('true');
    expect(now.contacted.lastValue).toBe(firstContact);

    // Further contact reaches last_contacted_at at most every 10 s.
    t.clock.advance(4_000);
    await t.beat('media');
    expect((await pair(t, 'media')).contacted.lastValue).toBe(firstContact);
    t.clock.advance(6_000);
    const tenSecondsLater = new Date(t.clock.now()).toISOString();
    await t.beat('media');
    expect((await pair(t, 'media')).contacted.lastValue).toBe(tenSecondsLater);

    t.clock.advance(30_000);
    tickHealth(t.deps);
    now = await pair(t, 'media');
    expect(now.alive.lastValue).toBe('false');
    const history = await t.call('GET', `/variables/${now.alive._id}/history`, {
      as: 'admin',
      query: { order: 'asc' },
    });
    expect(history.body.map((h: { value: string; source: string }) => [h.value, h.source])).toEqual([
      ['true', 'system'],
      ['false', 'system'],
    ]);
    const contactedHistory = await t.call('GET', `/variables/${now.contacted._id}/history`, { as: 'admin' });
    expect(contactedHistory.body).toEqual([]);
  });
});
