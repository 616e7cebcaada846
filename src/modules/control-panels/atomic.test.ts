import { describe, expect, it } from 'bun:test';
import { addSubsystem, rowCount } from '../../../tests/helpers/app';
import { expectRolledBack, outboxApp } from '../roles/outbox-test-support';

describe('control panel writes and their webhook events commit together (§10 rule 3)', () => {
  it('a create or an update handed down to available panels stores nothing when its audit delivery fails', async () => {
    const t = await outboxApp();
    await addSubsystem(t, 'media');
    const body = { subsystemExternalId: 'media', externalRef: 'main', connection: { url: 'https://a.example/x' } };
    const registered = await t.call('POST', '/controlpanels', { as: 'admin', body });
    expect(registered.status).toBe(201);
    const available = await t.call('POST', '/controlpanels', {
      as: 'admin',
      query: { location: 'available' },
      body: { registeredPanelId: registered.body._id },
    });
    expect(available.status).toBe(201);
    const panels = () => t.deps.sqlite.query('SELECT * FROM control_panels ORDER BY id').all();
    const before = panels();
    await expectRolledBack(t, () =>
      t.call('PUT', `/controlpanels/${registered.body._id}`, {
        as: 'admin',
        body: { displayName: 'Renamed', connection: { url: 'https://b.example/y' } },
      }),
    );
    await expectRolledBack(t, () =>
      t.call('POST', '/controlpanels', { as: 'admin', body: { ...body, externalRef: 'second' } }),
    );
    expect(panels()).toEqual(before);
    expect(rowCount(t, 'control_panels')).toBe(2);
  });
});
