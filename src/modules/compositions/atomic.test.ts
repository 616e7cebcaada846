import { describe, expect, it } from 'bun:test';
import { addSubsystem, rowCount } from '../../../tests/helpers/app';
import { expectRolledBack, outboxApp } from '../roles/outbox-test-support';

describe('composition writes, their playables and their webhook events commit together (§10 rule 3)', () => {
  it('a create whose audit delivery cannot be queued stores neither the composition nor its playable', async () => {
    const t = await outboxApp();
    await addSubsystem(t, 'media');
    const template = await t.call('POST', '/playables', {
      as: 'admin',
      body: { subsystemExternalId: 'media', externalRef: 'tpl', type: 'template' },
    });
    await expectRolledBack(t, () =>
      t.call('POST', '/compositions', {
        as: 'admin',
        body: { subsystemExternalId: 'media', displayName: 'News', templatePath: { _id: template.body._id } },
      }),
    );
    expect(rowCount(t, 'compositions')).toBe(0);
    expect(rowCount(t, 'playables')).toBe(1);
  });
});
