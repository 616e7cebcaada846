import { describe, expect, it } from 'bun:test';
import { addSubsystem, rowCount } from '../../../tests/helpers/app';
import { expectRolledBack, outboxApp } from '../roles/outbox-test-support';

describe('event writes and their webhook events commit together (§10 rule 3)', () => {
  it('a create or trigger whose audit delivery cannot be queued stores nothing', async () => {
    const t = await outboxApp();
    await addSubsystem(t, 'media');
    const made = await t.call('POST', '/events', {
      as: 'admin',
      body: { subsystemExternalId: 'media', externalRef: 'go' },
    });
    expect(made.status).toBe(201);
    await expectRolledBack(t, () =>
      t.call('POST', '/events', { as: 'admin', body: { subsystemExternalId: 'media', externalRef: 'lost' } }),
    );
    await expectRolledBack(t, () => t.call('POST', `/events/${made.body._id}/trigger`, { as: 'admin' }));
    expect(rowCount(t, 'events')).toBe(1);
    expect(rowCount(t, 'events', 'last_triggered_at IS NULL')).toBe(1);
  });
});
