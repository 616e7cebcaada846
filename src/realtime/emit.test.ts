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

describe('in-unit listeners (deps.work.react): consequences commit with their cause', () => {
  function withScratch() {
    const t = makeTestApp();
    t.deps.sqlite.run('CREATE TABLE scratch (x INTEGER)');
    const seen = recordEvents(t, (e) => e.type === 'cause.happened' || e.type === 'consequence.happened');
    const inside: boolean[] = [];
    const errors: string[] = [];
    return { t, seen, inside, errors, rows: () => rowCount(t, 'scratch') };
  }
  /** A listener that stores and emits a consequence of each cause (and throws for `_id` 13). */
  function consequence(t: ReturnType<typeof makeTestApp>, inside: boolean[]) {
    return t.deps.work.react(['cause.happened'], (_type, data) => {
      inside.push(t.deps.sqlite.inTransaction);
      t.deps.sqlite.run('INSERT INTO scratch (x) VALUES (?)', [Number(data._id)]);
      emit(t.deps, 'consequence.happened', { _id: data._id });
      if (data._id === 13) throw new Error('unlucky');
    });
  }
  const ids = (events: { type: string; data: Record<string, unknown> }[]) =>
    events.map((e) => `${e.type.split('.')[0]}:${e.data._id}`);

  it('runs at the end of the cause’s change, in its transaction; its events are published after all of the cause’s', () => {
    const { t, seen, inside, rows } = withScratch();
    consequence(t, inside);
    transact(t.deps, () => {
      emit(t.deps, 'cause.happened', { _id: 1 });
      transact(t.deps, () => emit(t.deps, 'cause.happened', { _id: 2 }));
      // Not yet: the change has not finished.
      expect(inside).toEqual([]);
      t.deps.sqlite.run('INSERT INTO scratch (x) VALUES (0)');
    });
    expect(inside).toEqual([true, true]);
    expect(rows()).toBe(3);
    expect(ids(seen)).toEqual(['cause:1', 'cause:2', 'consequence:1', 'consequence:2']);
  });

  it('a nested change that fails takes the events it emitted away from the listeners', () => {
    const { t, seen, inside, rows } = withScratch();
    consequence(t, inside);
    transact(t.deps, () => {
      emit(t.deps, 'cause.happened', { _id: 1 });
      try {
        transact(t.deps, () => {
          emit(t.deps, 'cause.happened', { _id: 2 });
          throw new Error('inner');
        });
      } catch {
        // the outer change goes on
      }
    });
    expect(rows()).toBe(1);
    expect(ids(seen)).toEqual(['cause:1', 'consequence:1']);
  });

  it('a cause that rolls back takes its consequences with it; nothing is published', () => {
    const { t, seen, inside, rows } = withScratch();
    consequence(t, inside);
    expect(() =>
      transact(t.deps, () => {
        emit(t.deps, 'cause.happened', { _id: 1 });
        throw new Error('refused');
      }),
    ).toThrow('refused');
    expect(inside).toEqual([]);
    expect(rows()).toBe(0);
    expect(seen).toEqual([]);
  });

  it('a listener that throws undoes only its own part; the cause commits and the error is reported', async () => {
    const { t, seen, inside, rows } = withScratch();
    consequence(t, inside);
    const logged: unknown[] = [];
    const error = t.deps.log.error.bind(t.deps.log);
    t.deps.log.error = ((obj: unknown, ...rest: unknown[]) => {
      logged.push(obj);
      return (error as (...a: unknown[]) => void)(obj, ...rest);
    }) as typeof t.deps.log.error;
    transact(t.deps, () => {
      emit(t.deps, 'cause.happened', { _id: 12 });
      emit(t.deps, 'cause.happened', { _id: 13 });
    });
    expect(rows()).toBe(1);
    expect(ids(seen)).toEqual(['cause:12', 'cause:13', 'consequence:12']);
    expect(logged).toEqual([expect.objectContaining({ event: 'cause.happened' })]);
    // The same in a writer job: the job resolves, its cause is stored and published.
    await t.deps.work.submit(() => emit(t.deps, 'cause.happened', { _id: 13 }));
    expect(ids(seen).slice(3)).toEqual(['cause:13']);
    expect(logged).toHaveLength(2);
  });

  it('a writer batch carries its jobs’ consequences; a nested transact reacts once', async () => {
    const { t, seen, inside, rows } = withScratch();
    consequence(t, inside);
    await Promise.all([
      t.deps.work.submit(() => emit(t.deps, 'cause.happened', { _id: 1 })),
      t.deps.work.submit(() => transact(t.deps, () => emit(t.deps, 'cause.happened', { _id: 2 }))),
    ]);
    expect(inside).toEqual([true, true]);
    expect(rows()).toBe(2);
    expect(ids(seen)).toEqual(['cause:1', 'consequence:1', 'cause:2', 'consequence:2']);
  });

  it('stops when unsubscribed', () => {
    const { t, seen, inside, rows } = withScratch();
    consequence(t, inside)();
    transact(t.deps, () => emit(t.deps, 'cause.happened', { _id: 1 }));
    expect(rows()).toBe(0);
    expect(ids(seen)).toEqual(['cause:1']);
  });
});
