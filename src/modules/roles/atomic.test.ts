import { describe, expect, it } from 'bun:test';
import { rowCount } from '../../../tests/helpers/app';
import { expectRolledBack, outboxApp } from './outbox-test-support';

describe('role writes and their webhook events commit together (§10 rule 3)', () => {
  it('a create whose audit delivery cannot be queued stores no role', async () => {
    const t = await outboxApp();
    const roles = rowCount(t, 'roles');
    await expectRolledBack(t, () =>
      t.call('POST', '/roles', { as: 'admin', body: { name: 'lost', permissions: ['logs:read'] } }),
    );
    expect(rowCount(t, 'roles')).toBe(roles);
    // The role cache holds no row of the rolled-back transaction.
    expect((await t.call('GET', '/roles/lost', { as: 'admin' })).status).toBe(404);
  });
});
