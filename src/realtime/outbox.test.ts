import { describe, expect, it } from 'bun:test';
import { addSubsystem, recordEvents, rowCount } from '../../tests/helpers/app';
import { writerFor } from '../db/writer';
import { addWebhook, deliveryRows, webhookApp } from '../modules/webhooks/test-support';
import { emit } from './emit';

function payloads(t: ReturnType<typeof webhookApp>, webhookId: number) {
  return t.deps.sqlite
    .query<{ event_type: string; payload: string }, [number]>(
      'SELECT event_type, payload FROM webhook_deliveries WHERE webhook_id = ? ORDER BY id',
    )
    .all(webhookId);
}

describe('webhook outbox', () => {
  it('queues nothing while no webhook exists', async () => {
    const t = webhookApp();
    await addSubsystem(t, 'media');
    emit(t.deps, 'subsystem.updated', { _id: 1, changed: [] });
    expect(rowCount(t, 'webhook_deliveries')).toBe(0);
  });

  it('a value write queues its delivery with the bus event as the body, in the batch that stored the value', async () => {
    const t = webhookApp();
    await addSubsystem(t, 'media');
    const v = await t.call('POST', '/variables', {
      as: 'admin',
      body: { subsystemExternalId: 'media', externalRef: 'temp', displayName: 'T' },
    });
    const hook = await addWebhook(t, { url: 'https://hooks.example.com/', events: ['variable.changed'] });
    const bus = recordEvents(t, (e) => e.type === 'variable.changed');
    await t.call('POST', `/variables/${v.body._id}/value`, { from: '127.0.0.1', body: { value: '7' } });
    const rows = payloads(t, hook._id);
    expect(rows.map((r) => r.event_type)).toEqual(['variable.changed']);
    expect(JSON.parse(rows[0]?.payload ?? '')).toEqual({
      type: 'variable.changed',
      timestamp: bus[0]?.at,
      data: bus[0]?.data,
    });
  });

  it('a writer job that fails takes its queued deliveries along and never publishes; the others commit', async () => {
    const t = webhookApp();
    const hook = await addWebhook(t, { url: 'https://hooks.example.com/', events: ['variable.*'] });
    const bus = recordEvents(t, (e) => e.type.startsWith('variable.'));
    const writer = writerFor(t.deps);
    const ok = writer.submit((scope) => scope.emit('variable.updated', { _id: 1, changed: ['a'] }));
    const bad = writer.submit((scope) => {
      scope.emit('variable.updated', { _id: 2, changed: ['b'] });
      throw new Error('boom');
    });
    const after = writer.submit((scope) => scope.emit('variable.deleted', { _id: 3, changed: [] }));
    await ok;
    await expect(bad).rejects.toThrow('boom');
    await after;
    expect(payloads(t, hook._id).map((r) => JSON.parse(r.payload).data._id)).toEqual([1, 3]);
    expect(bus.map((e) => e.data._id)).toEqual([1, 3]);
  });

  it('emit inside a transaction queues in it: a rollback leaves no delivery', async () => {
    const t = webhookApp();
    const hook = await addWebhook(t, { url: 'https://hooks.example.com/', events: ['subsystem.updated'] });
    expect(() =>
      t.deps.sqlite.transaction(() => {
        emit(t.deps, 'subsystem.updated', { _id: 1, changed: [] });
        throw new Error('rolled back');
      })(),
    ).toThrow('rolled back');
    expect(deliveryRows(t, hook._id)).toEqual([]);
    t.deps.sqlite.transaction(() => emit(t.deps, 'subsystem.updated', { _id: 1, changed: [] }))();
    expect(deliveryRows(t, hook._id)).toHaveLength(1);
  });

  it('matches events by name, noun.* and *, and by subsystem when the webhook names some', async () => {
    const t = webhookApp();
    const media = await addSubsystem(t, 'media');
    const light = await addSubsystem(t, 'light');
    const exact = await addWebhook(t, { url: 'https://hooks.example.com/', events: ['subsystem.online'] });
    const noun = await addWebhook(t, { url: 'https://hooks.example.com/', events: ['subsystem.*'] });
    const all = await addWebhook(t, { url: 'https://hooks.example.com/', events: ['*'] });
    const mediaOnly = await addWebhook(t, {
      url: 'https://hooks.example.com/',
      events: ['*'],
      subsystemIds: [media._id],
    });
    const inactive = await addWebhook(t, { url: 'https://hooks.example.com/', active: false });
    t.deps.sqlite.run('DELETE FROM webhook_deliveries');
    emit(t.deps, 'subsystem.online', { _id: media._id, externalId: 'media' });
    emit(t.deps, 'subsystem.updated', { _id: light._id, externalId: 'light', changed: [] });
    emit(t.deps, 'variable.changed', { _id: 9, subsystemExternalId: 'media', lastValue: '1' });
    emit(t.deps, 'variable.changed', { _id: 10, subsystemExternalId: 'light', lastValue: '1' });
    emit(t.deps, 'parameter.changed', { _id: 11, subsystemId: media._id });
    emit(t.deps, 'settings.changed', { keys: ['timezone'] });
    emit(t.deps, 'webhook.test', { _id: all._id });
    const types = (id: number) => deliveryRows(t, id).map((d) => d.event_type);
    expect(types(exact._id)).toEqual(['subsystem.online']);
    expect(types(noun._id)).toEqual(['subsystem.online', 'subsystem.updated']);
    // Other modules' listeners react to some of these with events of their own; `*` gets those too.
    const mine = new Set([
      'subsystem.online',
      'subsystem.updated',
      'variable.changed',
      'parameter.changed',
      'settings.changed',
    ]);
    expect(types(all._id)).not.toContain('webhook.test');
    expect(types(all._id).filter((type) => mine.has(type))).toEqual([
      'subsystem.online',
      'subsystem.updated',
      'variable.changed',
      'variable.changed',
      'parameter.changed',
      'settings.changed',
    ]);
    expect(types(mediaOnly._id)).toEqual(['subsystem.online', 'variable.changed', 'parameter.changed']);
    expect(types(inactive._id)).toEqual([]);
    // Renaming the subsystem's externalId keeps the filter on the same subsystem.
    await t.call('PATCH', '/subsystems/media', { as: 'admin', body: { externalId: 'media2' } });
    t.deps.sqlite.run('DELETE FROM webhook_deliveries');
    emit(t.deps, 'variable.changed', { _id: 9, subsystemExternalId: 'media2', lastValue: '2' });
    expect(types(mediaOnly._id)).toEqual(['variable.changed']);
  });
});
