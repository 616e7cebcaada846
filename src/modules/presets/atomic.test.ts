import { describe, expect, it } from 'bun:test';
import { addSubsystem, rowCount } from '../../../tests/helpers/app';
import { expectRolledBack, outboxApp } from '../roles/outbox-test-support';

describe('preset writes and their webhook events commit together (§10 rule 3)', () => {
  it('an apply whose audit delivery cannot be queued stores no value and queues no message', async () => {
    const t = await outboxApp();
    await addSubsystem(t, 'media');
    const param = await t.call('POST', '/parameters', {
      as: 'admin',
      body: { subsystemExternalId: 'media', externalRef: 'line', default: 'a' },
    });
    const preset = await t.call('POST', '/presets', {
      as: 'admin',
      body: { subsystemExternalId: 'media', displayName: 'Show', parameters: [{ parameter: 'line', value: 'b' }] },
    });
    expect(preset.status).toBe(201);
    const messages = rowCount(t, 'subsystem_messages');
    await expectRolledBack(t, () => t.call('POST', `/presets/${preset.body._id}/apply`, { as: 'admin' }));
    expect((await t.call('GET', `/parameters/${param.body._id}`, { as: 'admin' })).body.value).toBe('a');
    expect(rowCount(t, 'subsystem_messages')).toBe(messages);
    expect(rowCount(t, 'presets', 'last_applied_at IS NULL')).toBe(1);
  });
});
