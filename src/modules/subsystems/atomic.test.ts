import { describe, expect, it } from 'bun:test';
import { addSubsystem, rowCount } from '../../../tests/helpers/app';
import { expectRolledBack, outboxApp } from '../roles/outbox-test-support';

describe('subsystem writes and their webhook events commit together (§10 rule 3)', () => {
  it('an update or delete whose audit delivery cannot be queued changes nothing, live health included', async () => {
    const t = await outboxApp();
    const media = await addSubsystem(t, 'media');
    const before = t.deps.sqlite.query('SELECT * FROM subsystems WHERE id = ?').get(media._id);
    await expectRolledBack(t, () =>
      t.call('PUT', `/subsystems/${media._id}`, { as: 'admin', body: { displayName: 'Lost', healthEnabled: false } }),
    );
    await expectRolledBack(t, () => t.call('DELETE', `/subsystems/${media._id}`, { as: 'admin' }));
    expect(t.deps.sqlite.query('SELECT * FROM subsystems WHERE id = ?').get(media._id)).toEqual(before);
    expect(rowCount(t, 'variables', 'subsystem_id = ?', String(media._id))).toBe(2);
    const read = await t.call('GET', `/subsystems/${media._id}`, { as: 'admin' });
    expect([read.body.displayName, read.body.status]).toEqual(['media', 'unknown']);
  });
});

describe('health transitions and their webhook events commit together (§10 rule 3)', () => {
  it('going online whose events cannot be queued leaves the row and the live status as they were', async () => {
    const t = await outboxApp();
    const media = await addSubsystem(t, 'media');
    const before = t.deps.sqlite.query('SELECT * FROM subsystems WHERE id = ?').get(media._id);
    // The platform variables' own events are published by variables/platform.ts after its savepoint,
    // not after the outer commit (that module's to change); their deliveries do roll back. Going
    // online is a writer job (a venue powering up batches them), whose events go into the batch's
    // outbox row: that is what fails here.
    await expectRolledBack(
      t,
      () => t.call('PUT', `/subsystems/${media._id}/heartbeat`, { from: '127.0.0.1' }),
      (type) => !type.startsWith('variable.'),
      t.breakBatchOutbox,
    );
    expect(rowCount(t, 'variables', "subsystem_id = ? AND last_value = 'true'", String(media._id))).toBe(0);
    expect(t.deps.sqlite.query('SELECT * FROM subsystems WHERE id = ?').get(media._id)).toEqual(before);
    expect((await t.call('GET', `/subsystems/${media._id}`, { as: 'admin' })).body.status).toBe('unknown');
  });
});
