import { describe, expect, it } from 'bun:test';
import { rowCount } from '../../../tests/helpers/app';
import { expectRolledBack, outboxApp } from '../roles/outbox-test-support';
import { builtInRoleId } from '../roles/service';

describe('token writes and their webhook events commit together (§10 rule 3)', () => {
  it('a create whose audit delivery cannot be queued stores no token', async () => {
    const t = await outboxApp();
    const tokens = rowCount(t, 'tokens');
    await expectRolledBack(t, () =>
      t.call('POST', '/tokens', {
        as: 'admin',
        body: { displayName: 'lost', roleId: builtInRoleId(t.deps, 'viewer') },
      }),
    );
    expect(rowCount(t, 'tokens')).toBe(tokens);
  });
});
