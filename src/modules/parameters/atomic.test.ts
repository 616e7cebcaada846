import { describe, expect, it } from 'bun:test';
import { addSubsystem, rowCount } from '../../../tests/helpers/app';
import { expectRolledBack, outboxApp } from '../roles/outbox-test-support';

describe('parameter writes and their webhook events commit together (§10 rule 3)', () => {
  it('a value set whose audit delivery cannot be queued stores no value and queues no message', async () => {
    const t = await outboxApp();
    await addSubsystem(t, 'media');
    const made = await t.call('POST', '/parameters', {
      as: 'admin',
      body: { subsystemExternalId: 'media', externalRef: 'line', default: 'a' },
    });
    expect(made.status).toBe(201);
    const messages = rowCount(t, 'subsystem_messages');
    await expectRolledBack(t, () =>
      t.call('PUT', `/parameters/${made.body._id}/value`, { as: 'admin', body: { value: 'b' } }),
    );
    expect((await t.call('GET', `/parameters/${made.body._id}`, { as: 'admin' })).body.value).toBe('a');
    expect(rowCount(t, 'subsystem_messages')).toBe(messages);
  });
});
