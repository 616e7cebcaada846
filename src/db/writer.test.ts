import { Database } from 'bun:sqlite';
import { describe, expect, it } from 'bun:test';
import { CONGESTED_QUEUE, LOAD_WINDOW_MS, Writer } from './writer';

function db() {
  const sqlite = new Database(':memory:');
  sqlite.run('CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT NOT NULL)');
  return sqlite;
}

describe('Writer', () => {
  it('is congested while many jobs wait, and while batches take a quarter of the time or more', async () => {
    let now = 0;
    const writer = new Writer(db(), { monotonic: () => now });
    /** `idle` ms of nothing, then a job that keeps the writer busy for `busy` ms. */
    const work = async (idle: number, busy: number) => {
      now += idle;
      await writer.submit(() => {
        now += busy;
      });
    };
    expect(writer.congested).toBe(false);
    // One job waiting (the next request of a steady stream) is no congestion; a burst is.
    const one = writer.submit(() => null);
    expect(writer.congested).toBe(false);
    await one;
    const burst = Promise.all(Array.from({ length: CONGESTED_QUEUE }, () => writer.submit(() => null)));
    expect(writer.congested).toBe(true);
    await burst;
    expect(writer.congested).toBe(false);
    // Busy a fifth of the time, for three windows: not congested.
    for (let i = 0; i < 30; i++) await work(8, 2);
    expect(writer.congested).toBe(false);
    // A quarter: congested, until two windows after the last window closed.
    for (let i = 0; i < 30; i++) await work(7.5, 2.5);
    expect(writer.congested).toBe(true);
    now += 2 * LOAD_WINDOW_MS - 1;
    expect(writer.congested).toBe(true);
    now += 1;
    expect(writer.congested).toBe(false);
  });

  it('commits jobs queued together in one transaction, in order, and resolves after the commit', async () => {
    const sqlite = db();
    const writer = new Writer(sqlite);
    const seen: string[] = [];
    const jobs = ['a', 'b', 'c'].map((v) =>
      writer.submit((scope) => {
        sqlite.run('INSERT INTO t (v) VALUES (?)', [v]);
        scope.afterCommit(() => seen.push(`${v}:${sqlite.inTransaction}`));
        return v;
      }),
    );
    expect(await Promise.all(jobs)).toEqual(['a', 'b', 'c']);
    expect(seen).toEqual(['a:false', 'b:false', 'c:false']);
    expect(sqlite.query('SELECT v FROM t ORDER BY id').values()).toEqual([['a'], ['b'], ['c']]);
  });

  it('a failing job is undone alone; its effects are dropped and its undo runs', async () => {
    const sqlite = db();
    const writer = new Writer(sqlite);
    const effects: string[] = [];
    const ok = writer.submit((scope) => {
      sqlite.run("INSERT INTO t (v) VALUES ('kept')");
      scope.afterCommit(() => effects.push('kept'));
    });
    const bad = writer.submit((scope) => {
      sqlite.run("INSERT INTO t (v) VALUES ('lost')");
      scope.afterCommit(() => effects.push('lost'));
      scope.onUndo(() => effects.push('undone'));
      throw new Error('boom');
    });
    await ok;
    await expect(bad).rejects.toThrow('boom');
    expect(sqlite.query('SELECT v FROM t').values()).toEqual([['kept']]);
    // The job ran twice (without savepoints, then alone in one after the batch was rolled back), so
    // its changes were undone twice; the effect of the job that committed ran once.
    expect(effects).toEqual(['undone', 'undone', 'kept']);
  });

  it('a job that throws having written nothing is dropped alone: the batch is not run again', async () => {
    const sqlite = db();
    const writer = new Writer(sqlite);
    const runs: string[] = [];
    const effects: string[] = [];
    const write = (v: string) =>
      writer.submit((scope) => {
        runs.push(v);
        sqlite.run('INSERT INTO t (v) VALUES (?)', [v]);
        scope.afterCommit(() => effects.push(v));
      });
    const first = write('a');
    const refused = writer.submit((scope) => {
      runs.push('refused');
      sqlite.query('SELECT count(*) FROM t').get();
      scope.afterCommit(() => effects.push('lost'));
      scope.onUndo(() => effects.push('undone'));
      throw new Error('refused');
    });
    const last = write('b');
    await Promise.all([first, last]);
    await expect(refused).rejects.toThrow('refused');
    expect(runs).toEqual(['a', 'refused', 'b']);
    expect(effects).toEqual(['undone', 'a', 'b']);
    expect(sqlite.query('SELECT v FROM t ORDER BY id').values()).toEqual([['a'], ['b']]);
  });

  it('splits a long queue into batches of maxBatch', async () => {
    const sqlite = db();
    const writer = new Writer(sqlite, { maxBatch: 2 });
    const trace: string[] = [];
    await Promise.all(
      Array.from({ length: 5 }, (_, i) =>
        writer.submit((scope) => {
          trace.push(`run${i}`);
          scope.afterCommit(() => trace.push(`done${i}`));
        }),
      ),
    );
    expect(trace).toEqual(['run0', 'run1', 'done0', 'done1', 'run2', 'run3', 'done2', 'done3', 'run4', 'done4']);
  });
});
