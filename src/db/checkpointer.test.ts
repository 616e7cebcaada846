import type { Database } from 'bun:sqlite';
import { afterEach, describe, expect, it } from 'bun:test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLogger } from '../log';
import { Checkpointer, RESTART_FRAMES, RESTING_AUTOCHECKPOINT_PAGES } from './checkpointer';
import { AUTOCHECKPOINT_PAGES, openSqlite } from './client';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function database(): Database {
  const dir = mkdtempSync(join(tmpdir(), 'pms-checkpoint-'));
  dirs.push(dir);
  const sqlite = openSqlite(join(dir, 'pms.db'));
  sqlite.run('CREATE TABLE t (x TEXT)');
  return sqlite;
}

/** Commits `n` transactions of one row each (each adds frames to the WAL). */
function writes(sqlite: Database, n: number): void {
  const insert = sqlite.prepare('INSERT INTO t (x) VALUES (?)');
  for (let i = 0; i < n; i++) insert.run('x'.repeat(500));
}

const autocheckpoint = (sqlite: Database) =>
  sqlite.query<{ wal_autocheckpoint: number }, []>('PRAGMA wal_autocheckpoint').get()?.wal_autocheckpoint;

/** Errors and debug lines logged by the checkpointer. */
function recordingLog() {
  const log = createLogger('silent');
  const errors: unknown[] = [];
  const debug: string[] = [];
  log.error = ((obj: unknown) => {
    errors.push(obj);
  }) as typeof log.error;
  log.debug = ((_obj: unknown, msg: string) => {
    debug.push(msg);
  }) as typeof log.debug;
  return { log, errors, debug };
}

describe('Checkpointer: WAL checkpoints on a thread of their own', () => {
  it('turns the automatic checkpoint off and checkpoints everything committed when asked', async () => {
    const sqlite = database();
    const { log, errors } = recordingLog();
    const checkpointer = new Checkpointer(sqlite, log);
    checkpointer.start();
    expect(autocheckpoint(sqlite)).toBe(0);
    writes(sqlite, 300);
    const first = await checkpointer.request();
    expect(first?.log).toBeGreaterThanOrEqual(300);
    expect(first?.checkpointed).toBe(first?.log ?? -1);
    // Caught up: the next write starts the WAL again from its beginning.
    writes(sqlite, 3);
    const second = await checkpointer.request();
    expect(second?.log).toBeLessThan(10);
    expect(second?.checkpointed).toBe(second?.log ?? -1);
    await checkpointer.stop();
    expect(checkpointer.running).toBe(false);
    expect(autocheckpoint(sqlite)).toBe(AUTOCHECKPOINT_PAGES);
    expect(errors).toEqual([]);
    expect(await checkpointer.request()).toBeNull();
    sqlite.close();
  });

  it(`past ${RESTART_FRAMES} frames the main thread copies what the thread left, so the WAL starts again`, async () => {
    const sqlite = database();
    const { log, debug, errors } = recordingLog();
    const checkpointer = new Checkpointer(sqlite, log);
    checkpointer.start();
    writes(sqlite, 300);
    await checkpointer.request();
    expect(debug.filter((m) => m.includes('main thread'))).toEqual([]);
    writes(sqlite, RESTART_FRAMES + 100);
    const big = await checkpointer.request();
    expect(big?.log).toBeGreaterThanOrEqual(RESTART_FRAMES);
    expect(debug.filter((m) => m.includes('main thread'))).toHaveLength(1);
    writes(sqlite, 3);
    expect((await checkpointer.request())?.log).toBeLessThan(10);
    expect(errors).toEqual([]);
    await checkpointer.stop();
    sqlite.close();
  });

  it('one checkpoint at a time: a second request while one runs gets the same answer', async () => {
    const sqlite = database();
    const checkpointer = new Checkpointer(sqlite, recordingLog().log);
    checkpointer.start();
    writes(sqlite, 50);
    const a = checkpointer.request();
    const b = checkpointer.request();
    expect(b).toBe(a);
    expect((await a)?.checkpointed).toBeGreaterThan(0);
    await checkpointer.stop();
    sqlite.close();
  });

  it('a thread that cannot run brings the automatic checkpoint back, logged', async () => {
    const sqlite = database();
    const { log, errors } = recordingLog();
    const checkpointer = new Checkpointer(sqlite, log, new URL('./no-such-worker.ts', import.meta.url).href);
    checkpointer.start();
    for (let i = 0; i < 100 && checkpointer.running; i++) await Bun.sleep(20);
    expect(checkpointer.running).toBe(false);
    expect(autocheckpoint(sqlite)).toBe(AUTOCHECKPOINT_PAGES);
    expect(errors.length).toBeGreaterThan(0);
    expect(await checkpointer.request()).toBeNull();
    sqlite.close();
  });

  it('a connection the thread cannot open brings the automatic checkpoint back', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pms-checkpoint-'));
    dirs.push(dir);
    const { log, errors } = recordingLog();
    // The thread opens the file by name; removed from under it, there is nothing to open.
    const sqlite = openSqlite(join(dir, 'pms.db'));
    rmSync(dir, { recursive: true, force: true });
    const checkpointer = new Checkpointer(sqlite, log);
    checkpointer.start();
    for (let i = 0; i < 100 && checkpointer.running; i++) await Bun.sleep(20);
    expect(checkpointer.running).toBe(false);
    expect(autocheckpoint(sqlite)).toBe(AUTOCHECKPOINT_PAGES);
    expect(errors).toEqual([expect.objectContaining({ reason: expect.any(String) })]);
    sqlite.close();
  });

  it('rests while the daemon is quiet: the WAL copied back, the thread ended, SQLite checkpointing in the commit; woken, it runs again', async () => {
    const sqlite = database();
    const { log, errors } = recordingLog();
    const checkpointer = new Checkpointer(sqlite, log);
    checkpointer.start();
    writes(sqlite, 300);
    await checkpointer.rest();
    expect(checkpointer.running).toBe(false);
    expect(autocheckpoint(sqlite)).toBe(RESTING_AUTOCHECKPOINT_PAGES);
    // Everything was copied back before the rest: the next write starts the WAL from its beginning.
    writes(sqlite, 3);
    const wal = sqlite.query<{ log: number }, []>('PRAGMA wal_checkpoint(PASSIVE)').get();
    expect(wal?.log).toBeLessThan(10);
    // Resting, the per-second job asks for nothing.
    expect(await checkpointer.request()).toBeNull();
    checkpointer.wake();
    for (let i = 0; i < 100 && !checkpointer.running; i++) await Bun.sleep(5);
    expect(checkpointer.running).toBe(true);
    expect(autocheckpoint(sqlite)).toBe(0);
    writes(sqlite, 50);
    expect((await checkpointer.request())?.checkpointed).toBeGreaterThan(0);
    await checkpointer.stop();
    expect(autocheckpoint(sqlite)).toBe(AUTOCHECKPOINT_PAGES);
    expect(errors).toEqual([]);
    sqlite.close();
  });

  it('a checkpoint asked while the thread is going to rest does not count as a failure, and a wake meanwhile starts it again', async () => {
    const sqlite = database();
    const { log, errors } = recordingLog();
    const checkpointer = new Checkpointer(sqlite, log);
    checkpointer.start();
    writes(sqlite, 100);
    const resting = checkpointer.rest();
    // The per-second job comes while the thread closes its connection.
    expect(await checkpointer.request()).toBeNull();
    checkpointer.wake();
    // And again after the wake, before the thread has ended: still nothing asked of it.
    expect(await checkpointer.request()).toBeNull();
    await resting;
    for (let i = 0; i < 100 && !checkpointer.running; i++) await Bun.sleep(5);
    expect(checkpointer.running).toBe(true);
    expect(autocheckpoint(sqlite)).toBe(0);
    writes(sqlite, 10);
    expect((await checkpointer.request())?.checkpointed).toBeGreaterThan(0);
    expect(errors).toEqual([]);
    await checkpointer.stop();
    sqlite.close();
  });

  it('stopped while resting, it stays stopped: a wake after the stop starts nothing', async () => {
    const sqlite = database();
    const checkpointer = new Checkpointer(sqlite, recordingLog().log);
    checkpointer.start();
    await checkpointer.rest();
    await checkpointer.stop();
    expect(autocheckpoint(sqlite)).toBe(AUTOCHECKPOINT_PAGES);
    checkpointer.wake();
    await Bun.sleep(50);
    expect(checkpointer.running).toBe(false);
    expect(autocheckpoint(sqlite)).toBe(AUTOCHECKPOINT_PAGES);
    sqlite.close();
  });

  it('a thread that failed is not woken: the automatic checkpoint stays', async () => {
    const sqlite = database();
    const { log, errors } = recordingLog();
    const checkpointer = new Checkpointer(sqlite, log);
    checkpointer.start();
    const resting = checkpointer.rest();
    checkpointer.wake();
    // The thread fails while it goes to rest (its connection gone under it, as a broken thread would).
    (checkpointer as unknown as { fallBack(reason: string): void }).fallBack('broken');
    await resting;
    await Bun.sleep(50);
    expect(checkpointer.running).toBe(false);
    expect(autocheckpoint(sqlite)).toBe(AUTOCHECKPOINT_PAGES);
    expect(errors).toHaveLength(1);
    sqlite.close();
  });
});
