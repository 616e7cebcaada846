import { describe, expect, it } from 'bun:test';
import { makeTestApp, recordEvents, rowCount } from '../../tests/helpers/app';
import { emit, transact } from './emit';

describe('transact: a change and its events in one transaction', () => {
  async function withWebhook() {
    const t = makeTestApp();
    const hook = await t.call('POST', '/webhook', {
      as: 'admin',
      body: { displayName: 'all', url: 'http://receiver.invalid/hook', events: ['*'] },
    });
    expect(hook.status).toBe(201);
    return { t, queued: () => rowCount(t, 'webhook_deliveries', "event_type = 'role.created'") };
  }

  it('queues the deliveries inside the transaction and publishes after the commit', async () => {
    const { t, queued } = await withWebhook();
    const seen = recordEvents(t, (e) => e.type === 'role.created');
    const inside: boolean[] = [];
    transact(t.deps, () => {
      emit(t.deps, 'role.created', { _id: 99, changed: [] });
      inside.push(t.deps.sqlite.inTransaction, seen.length > 0);
      emit(t.deps, 'role.created', { _id: 100, changed: [] });
    });
    expect(inside).toEqual([true, false]);
    expect(seen.map((e) => e.data._id)).toEqual([99, 100]);
    expect(queued()).toBe(2);
  });

  it('a change that throws stores no delivery and publishes nothing', async () => {
    const { t, queued } = await withWebhook();
    const seen = recordEvents(t, (e) => e.type === 'role.created');
    expect(() =>
      transact(t.deps, () => {
        emit(t.deps, 'role.created', { _id: 99, changed: [] });
        throw new Error('refused');
      }),
    ).toThrow('refused');
    expect(seen).toEqual([]);
    expect(queued()).toBe(0);
  });

  it('a nested transact that throws drops only its own events', async () => {
    const { t, queued } = await withWebhook();
    const seen = recordEvents(t, (e) => e.type === 'role.created');
    transact(t.deps, () => {
      emit(t.deps, 'role.created', { _id: 1, changed: [] });
      try {
        transact(t.deps, () => {
          emit(t.deps, 'role.created', { _id: 2, changed: [] });
          throw new Error('inner');
        });
      } catch {
        // the outer change goes on
      }
    });
    expect(seen.map((e) => e.data._id)).toEqual([1]);
    expect(queued()).toBe(1);
  });
});
