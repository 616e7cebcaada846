import { describe, expect, it } from 'bun:test';
import { rowCount } from '../../../tests/helpers/app';
import { expectRolledBack, outboxApp } from '../roles/outbox-test-support';

describe('user template writes and their webhook events commit together (§10 rule 3)', () => {
  it('a default-taking create whose audit delivery cannot be queued changes no template', async () => {
    const t = await outboxApp();
    const first = await t.call('POST', '/usertemplates', { as: 'admin', body: { displayName: 'A', isDefault: true } });
    expect(first.status).toBe(201);
    await expectRolledBack(t, () =>
      t.call('POST', '/usertemplates', { as: 'admin', body: { displayName: 'B', isDefault: true } }),
    );
    expect(rowCount(t, 'user_templates')).toBe(1);
    expect((await t.call('GET', `/usertemplates/${first.body._id}`, { as: 'admin' })).body.isDefault).toBe(true);
  });
});
