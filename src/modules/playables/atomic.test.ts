import { describe, expect, it } from 'bun:test';
import { addSubsystem, rowCount } from '../../../tests/helpers/app';
import { expectRolledBack, outboxApp } from '../roles/outbox-test-support';

describe('playable writes and their webhook events commit together (§10 rule 3)', () => {
  it('a create whose audit delivery cannot be queued stores no playable', async () => {
    const t = await outboxApp();
    await addSubsystem(t, 'media');
    await expectRolledBack(t, () =>
      t.call('POST', '/playables', { as: 'admin', body: { subsystemExternalId: 'media', externalRef: 'clip' } }),
    );
    expect(rowCount(t, 'playables')).toBe(0);
  });
});
