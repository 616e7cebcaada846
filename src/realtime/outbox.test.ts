import { describe, expect, it } from 'bun:test';
import { addSubsystem, recordEvents, rowCount } from '../../tests/helpers/app';
import { addWebhook, deliveryRows, webhookApp } from '../modules/webhooks/test-support';
import { emit } from './emit';
import { takeInOutbox } from './outbox';

/** Delivery bodies of a webhook after the outbox was taken in, oldest first. */
function payloads(t: ReturnType<typeof webhookApp>, webhookId: number) {
  while (takeInOutbox(t.deps)) {}
  return t.deps.sqlite
    .query<{ event_type: string; payload: string }, [number]>(
      'SELECT event_type, payload FROM webhook_deliveries WHERE webhook_id = ? ORDER BY id',
    )
    .all(webhookId);
}

function outboxRows(t: ReturnType<typeof webhookApp>) {
  return t.deps.sqlite
    .query<{ created_at: number; events: string }, []>('SELECT created_at, events FROM webhook_outbox ORDER BY id')
    .all();
}

describe('webhook outbox', () => {
  it('queues nothing while no webhook exists', async () => {
    const t = webhookApp();
    await addSubsystem(t, 'media');
    emit(t.deps, 'subsystem.updated', { _id: 1, changed: [] });
    expect(rowCount(t, 'webhook_deliveries')).toBe(0);
  });

  it('a value write queues its delivery in the outbox row of the batch that stored the value; take-in makes it a delivery', async () => {
    const t = webhookApp();
    await addSubsystem(t, 'media');
    const v = await t.call('POST', '/variables', {
      as: 'admin',
      body: { subsystemExternalId: 'media', externalRef: 'temp', displayName: 'T' },
    });
    const hook = await addWebhook(t, { url: 'https://hooks.example.com/', events: ['variable.changed'] });
    const bus = recordEvents(t, (e) => e.type === 'variable.changed');
    await t.call('POST', `/variables/${v.body._id}/value`, { from: '127.0.0.1', body: { value: '7' } });
    const body = JSON.stringify({ type: 'variable.changed', timestamp: bus[0]?.at, data: bus[0]?.data });
    expect(outboxRows(t)).toEqual([
      {
        created_at: t.clock.now(),
        events: `${hook._id}\tvariable.changed\t${bus[0]?.at}\t${JSON.stringify(bus[0]?.data)}`,
      },
    ]);
    expect(rowCount(t, 'webhook_deliveries')).toBe(0);

    expect(takeInOutbox(t.deps)).toBe(false);
    expect(rowCount(t, 'webhook_outbox')).toBe(0);
    const [row] = t.deps.sqlite
      .query<{ event_id: string; event_type: string; status: string; payload: string; created_at: number }, []>(
        'SELECT event_id, event_type, status, payload, created_at FROM webhook_deliveries',
      )
      .all();
    expect(row).toEqual({
      event_id: expect.stringMatching(/^msg_[0-9a-f]{32}$/),
      event_type: 'variable.changed',
      status: 'pending',
      payload: body,
      created_at: t.clock.now(),
    });
  });

  it('a writer batch writes one outbox row, in job order; a failing job takes its lines along and never publishes', async () => {
    const t = webhookApp();
    const hook = await addWebhook(t, { url: 'https://hooks.example.com/', events: ['variable.*'] });
    const bus = recordEvents(t, (e) => e.type.startsWith('variable.'));
    const writer = t.deps.work;
    const ok = writer.submit((scope) => scope.emit('variable.updated', { _id: 1, changed: ['a'] }));
    const bad = writer.submit((scope) => {
      scope.emit('variable.updated', { _id: 2, changed: ['b'] });
      throw new Error('boom');
    });
    const after = writer.submit((scope) => scope.emit('variable.deleted', { _id: 3, changed: [] }));
    await ok;
    await expect(bad).rejects.toThrow('boom');
    await after;
    expect(rowCount(t, 'webhook_outbox')).toBe(1);
    expect(payloads(t, hook._id).map((r) => JSON.parse(r.payload).data._id)).toEqual([1, 3]);
    expect(bus.map((e) => e.data._id)).toEqual([1, 3]);
  });

  it('a batch whose outbox row cannot be written stores nothing: the value write fails and nothing is published', async () => {
    const t = webhookApp();
    const media = await addSubsystem(t, 'media');
    const v = await t.call('PUT', '/variables', {
      as: 'admin',
      body: { subsystemId: media._id, externalRef: 'temp', displayName: 'T' },
    });
    await addWebhook(t, { url: 'https://hooks.example.com/', events: ['variable.changed'] });
    const bus = recordEvents(t, (e) => e.type === 'variable.changed');
    t.deps.sqlite.run(
      "CREATE TRIGGER refuse_outbox BEFORE INSERT ON webhook_outbox BEGIN SELECT RAISE(ABORT, 'outbox refused'); END",
    );
    const res = await t.call('POST', `/variables/${v.body._id}/value`, { from: '127.0.0.1', body: { value: '7' } });
    // The trigger's abort is a constraint failure (409); a full disk would be 507. Either way no 2xx.
    expect(res.status).toBe(409);
    expect(bus).toEqual([]);
    expect(rowCount(t, 'variable_history_recent', `variable_id = ${v.body._id}`)).toBe(0);
    const read = await t.call('GET', `/variables/${v.body._id}`, { as: 'admin' });
    expect(read.body.lastValue).not.toBe('7');
  });

  it('take-in works oldest first in bounded steps and drops the lines of a deleted webhook', async () => {
    const t = webhookApp();
    const kept = await addWebhook(t, { url: 'https://hooks.example.com/', events: ['variable.*'] });
    const gone = await addWebhook(t, { url: 'https://hooks.example.com/', events: ['variable.*'] });
    const writer = t.deps.work;
    for (let i = 1; i <= 3; i++) {
      await writer.submit((scope) => scope.emit('variable.updated', { _id: i, changed: [] }));
      t.clock.advance(1000);
    }
    expect(rowCount(t, 'webhook_outbox')).toBe(3);
    // One line per event, whatever the number of webhooks.
    expect(outboxRows(t)[0]?.events).toStartWith(`${kept._id},${gone._id}\tvariable.updated\t`);
    await t.call('DELETE', `/webhook/${gone._id}`, { as: 'admin' });
    // Whole rows (two deliveries each here), at least one, until the budget is reached.
    expect(takeInOutbox(t.deps, 1)).toBe(true);
    expect(rowCount(t, 'webhook_outbox')).toBe(2);
    expect(takeInOutbox(t.deps, 3)).toBe(false);
    expect(rowCount(t, 'webhook_outbox')).toBe(0);
    expect(rowCount(t, 'webhook_deliveries', `webhook_id = ${gone._id}`)).toBe(0);
    const rows = t.deps.sqlite
      .query<{ payload: string; created_at: number }, [number]>(
        'SELECT payload, created_at FROM webhook_deliveries WHERE webhook_id = ? ORDER BY id',
      )
      .all(kept._id);
    expect(rows.map((r) => JSON.parse(r.payload).data._id)).toEqual([1, 2, 3]);
    expect(rows.map((r) => r.created_at - (rows[0]?.created_at ?? 0))).toEqual([0, 1000, 2000]);
  });

  it('an event two webhooks want is one line, taken in as a delivery each with the same body and its own webhook-id', async () => {
    const t = webhookApp();
    const a = await addWebhook(t, { url: 'https://a.example.com/', events: ['variable.*'] });
    const b = await addWebhook(t, { url: 'https://b.example.com/', events: ['variable.updated'] });
    const bus = recordEvents(t, (e) => e.type === 'variable.updated');
    const data = { _id: 5, name: 'tab\there, newline\nthere, "quoted"', changed: ['name'] };
    await t.deps.work.submit((scope) => scope.emit('variable.updated', data));
    expect(outboxRows(t).map((r) => r.events.split('\n').length)).toEqual([1]);
    takeInOutbox(t.deps);
    const rows = t.deps.sqlite
      .query<{ webhook_id: number; event_id: string; payload: string }, []>(
        'SELECT webhook_id, event_id, payload FROM webhook_deliveries ORDER BY id',
      )
      .all();
    const body = JSON.stringify({ type: 'variable.updated', timestamp: bus[0]?.at, data });
    expect(rows.map((r) => [r.webhook_id, r.payload])).toEqual([
      [a._id, body],
      [b._id, body],
    ]);
    expect(rows[0]?.event_id).not.toBe(rows[1]?.event_id);
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
