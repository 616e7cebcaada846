import { describe, expect, it } from 'bun:test';
import { rowCount } from '../../../tests/helpers/app';
import { expectRolledBack, outboxApp } from '../roles/outbox-test-support';
import { PASSWORD } from './test-support';

describe('user writes and their webhook events commit together (§10 rule 3)', () => {
  it('a delete or password set whose audit delivery cannot be queued changes nothing', async () => {
    const t = await outboxApp();
    const made = await t.call('POST', '/users', { as: 'admin', body: { username: 'jo', password: PASSWORD } });
    expect(made.status).toBe(201);
    const before = t.deps.sqlite.query('SELECT * FROM users WHERE id = ?').get(made.body._id);
    await expectRolledBack(t, () => t.call('DELETE', `/users/${made.body._id}`, { as: 'admin' }));
    await expectRolledBack(t, () =>
      t.call('PUT', `/users/${made.body._id}/password`, { as: 'admin', body: { password: `${PASSWORD} 2` } }),
    );
    expect(t.deps.sqlite.query('SELECT * FROM users WHERE id = ?').get(made.body._id)).toEqual(before);
    expect(rowCount(t, 'users', 'id = ?', String(made.body._id))).toBe(1);
  });
});
