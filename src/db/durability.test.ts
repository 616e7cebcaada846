/**
 * Acknowledged writes survive a power cut (db/durability.ts): a write's answer waits for the WAL's
 * sync, a read's never does, and one sync covers every write made before it began.
 */
import { describe, expect, it } from 'bun:test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { addSubsystem, makeTestApp } from '../../tests/helpers/app';
import { createLogger } from '../log';
import { openSqlite } from './client';
import { Durability, type DurabilityTiming, INLINE_MS, STALL_MS, walSync } from './durability';

/** A WAL sync the test finishes by hand, counting the calls; `now` (the request thread's) counts apart. */
function heldSync() {
  const pending: Array<() => void> = [];
  let calls = 0;
  let here = 0;
  return {
    sync: {
      inBackground: () => {
        calls += 1;
        return new Promise<void>((resolve) => pending.push(resolve));
      },
      now: () => {
        here += 1;
      },
    },
    release: () => {
      for (const done of pending.splice(0)) done();
    },
    get calls() {
      return calls;
    },
    get here() {
      return here;
    },
    get waiting() {
      return pending.length;
    },
  };
}

/** The sync's stall timer, fired by hand, and its time, moved by hand. */
function manualTiming() {
  let now = 0;
  const timers: Array<{ ms: number; fn: () => void }> = [];
  const timing: DurabilityTiming & { fire(): void; fireOnce(): void; advance(ms: number): void; armed(): number[] } = {
    after: (ms, fn) => {
      const timer = { ms, fn };
      timers.push(timer);
      return () => {
        const i = timers.indexOf(timer);
        if (i >= 0) timers.splice(i, 1);
      };
    },
    monotonic: () => now,
    /** Runs what is armed, and what that arms, until nothing is. */
    fire: () => {
      while (timers.length > 0) for (const timer of timers.splice(0)) timer.fn();
    },
    /** Runs only what is armed now. */
    fireOnce: () => {
      for (const timer of timers.splice(0)) timer.fn();
    },
    advance: (ms) => {
      now += ms;
    },
    armed: () => timers.map((t) => t.ms),
  };
  return timing;
}

/** Whether `promise` has settled after the event loop has run what is ready. */
async function settled(promise: Promise<unknown>): Promise<boolean> {
  let done = false;
  promise.then(
    () => {
      done = true;
    },
    () => {
      done = true;
    },
  );
  for (let i = 0; i < 20; i++) await Bun.sleep(0);
  return done;
}

describe('durable acknowledgements (PMS_DURABILITY=power-cut)', () => {
  it('answers a configuration write only once the WAL is synced; reads never wait', async () => {
    const wal = heldSync();
    const t = makeTestApp({ config: { durability: 'power-cut' }, walSync: wal.sync, durabilityTiming: manualTiming() });
    await addSubsystem(t, 'media');
    const write = t.call('POST', '/subsystems', { as: 'admin', body: { externalId: 'light' } });
    expect(await settled(write)).toBe(false);
    expect(wal.waiting).toBe(1);
    // A read beside it answers at once.
    expect(await settled(t.call('GET', '/subsystems', { as: 'admin' }))).toBe(true);
    wal.release();
    expect((await write).status).toBe(201);
  });

  it('answers a value write (the writer batch) once synced, and one sync serves a burst', async () => {
    const wal = heldSync();
    const t = makeTestApp({ config: { durability: 'power-cut' }, walSync: wal.sync, durabilityTiming: manualTiming() });
    await addSubsystem(t, 'media');
    const variable = t.call('POST', '/variables', {
      as: 'admin',
      body: { subsystemExternalId: 'media', externalRef: 'temp', valueType: 'number' },
    });
    while (!(await settled(variable))) wal.release();
    const id = (await variable).body._id;
    const before = wal.calls;
    const writes = [1, 2, 3, 4, 5].map((value) =>
      t.call('POST', `/variables/${id}/value`, { as: 'admin', body: { value } }),
    );
    expect(await settled(Promise.all(writes))).toBe(false);
    wal.release();
    for (const res of await Promise.all(writes)) expect(res.status).toBe(200);
    expect(wal.calls - before).toBeLessThanOrEqual(2);
  });

  it('a request that changed nothing does not wait (a refused write, an unchanged PUT)', async () => {
    const wal = heldSync();
    const t = makeTestApp({ config: { durability: 'power-cut' }, walSync: wal.sync, durabilityTiming: manualTiming() });
    await addSubsystem(t, 'media');
    const refused = t.call('POST', '/subsystems', { as: 'admin', body: { externalId: '123' } });
    expect(await settled(refused)).toBe(true);
    expect((await refused).status).toBe(400);
    const same = t.call('PATCH', '/subsystems/media', { as: 'admin', body: {} });
    expect(await settled(same)).toBe(true);
    expect(wal.waiting).toBe(0);
  });

  it('answers a heartbeat that wrote once synced, and one that wrote nothing at once (the heartbeat door)', async () => {
    const wal = heldSync();
    const t = makeTestApp({ config: { durability: 'power-cut' }, walSync: wal.sync, durabilityTiming: manualTiming() });
    await addSubsystem(t, 'media');
    const token = t.tokenFor('integration');
    // The first heartbeat brings the subsystem online and stores its address: a write.
    const first = t.call('PUT', '/subsystems/media/heartbeat', { token, from: '10.0.0.5' });
    expect(await settled(first)).toBe(false);
    while (!(await settled(first))) wal.release();
    expect((await first).status).toBe(200);
    // One that collects a queued message marks it delivered (a write outside the writer's batches).
    const queued = t.call('PUT', '/subsystems/media/action', { as: 'admin', body: { type: 'forceStop' } });
    while (!(await settled(queued))) wal.release();
    expect((await queued).status).toBe(202);
    const collecting = t.call('PUT', '/subsystems/media/heartbeat', { token, from: '10.0.0.5' });
    expect(await settled(collecting)).toBe(false);
    wal.release();
    expect((await collecting).body.messages).toHaveLength(1);
    // The next, a second later from the same address, changes nothing stored.
    t.clock.advance(1000);
    const next = t.call('PUT', '/subsystems/media/heartbeat', { token, from: '10.0.0.5' });
    expect(await settled(next)).toBe(true);
    expect((await next).status).toBe(200);
  });

  it('answers a value write by reference once synced, the one that creates the variable too (their door)', async () => {
    const wal = heldSync();
    const t = makeTestApp({ config: { durability: 'power-cut' }, walSync: wal.sync, durabilityTiming: manualTiming() });
    await addSubsystem(t, 'media');
    const token = t.tokenFor('integration');
    // Creating is a writer job of its own (the upsert), after the one that found nothing.
    const creating = t.call('PUT', '/subsystems/media/variables/temp/lastValue', { token, body: { value: 1 } });
    expect(await settled(creating)).toBe(false);
    while (!(await settled(creating))) wal.release();
    expect((await creating).status).toBe(201);
    // A write to it is a writer job, held by its batch.
    const writing = t.call('PUT', '/variable/lastValue/media/temp', { token, body: { value: 2 } });
    expect(await settled(writing)).toBe(false);
    while (!(await settled(writing))) wal.release();
    expect((await writing).status).toBe(200);
  });

  it("does a sync the thread pool holds up on the request thread, and the next second's there at once", async () => {
    const wal = heldSync();
    const timing = manualTiming();
    const lines: string[] = [];
    const log = createLogger('info', { write: (line: string) => void lines.push(line) });
    const t = makeTestApp({ config: { durability: 'power-cut' }, walSync: wal.sync, durabilityTiming: timing, log });
    await addSubsystem(t, 'media');
    // The pool never answers (a look-up whose DNS server is silent holds its threads).
    const held = t.call('POST', '/subsystems', { as: 'admin', body: { externalId: 'light' } });
    expect(await settled(held)).toBe(false);
    expect(timing.armed()).toEqual([STALL_MS]);
    timing.fire();
    expect((await held).status).toBe(201);
    expect(wal.here).toBe(1);
    expect(lines.join('')).toContain('a WAL sync waited for the file-system threads');
    // For the next second the request thread syncs at once, the pool is not asked.
    const calls = wal.calls;
    const next = t.call('POST', '/subsystems', { as: 'admin', body: { externalId: 'sound' } });
    expect(await settled(next)).toBe(true);
    expect((await next).status).toBe(201);
    expect([wal.calls - calls, wal.here]).toEqual([0, 2]);
    // Then the pool is tried again.
    timing.advance(INLINE_MS);
    const later = t.call('POST', '/subsystems', { as: 'admin', body: { externalId: 'video' } });
    expect(await settled(later)).toBe(false);
    expect(wal.calls - calls).toBe(1);
    wal.release();
    expect((await later).status).toBe(201);
    expect(wal.here).toBe(2);
  });

  it('keeps the request thread free when the disk itself is slow: the pool alone for the next second', async () => {
    const wal = heldSync();
    const timing = manualTiming();
    // The sync on the request thread takes as long as the stall: the disk, not the pool, is slow.
    const slowDisk = {
      ...wal.sync,
      now: () => {
        wal.sync.now();
        timing.advance(STALL_MS);
      },
    };
    const t = makeTestApp({ config: { durability: 'power-cut' }, walSync: slowDisk, durabilityTiming: timing });
    await addSubsystem(t, 'media');
    const held = t.call('POST', '/subsystems', { as: 'admin', body: { externalId: 'light' } });
    expect(await settled(held)).toBe(false);
    timing.fire();
    expect((await held).status).toBe(201);
    // The next write waits for the pool, with no stall timer.
    const next = t.call('POST', '/subsystems', { as: 'admin', body: { externalId: 'sound' } });
    expect(await settled(next)).toBe(false);
    expect(timing.armed()).toEqual([]);
    wal.release();
    expect((await next).status).toBe(201);
    expect(wal.here).toBe(1);
  });

  it('takes a pool answer that waited behind the stall timer for the answer, not for a stall', async () => {
    const wal = heldSync();
    const timing = manualTiming();
    const t = makeTestApp({ config: { durability: 'power-cut' }, walSync: wal.sync, durabilityTiming: timing });
    await addSubsystem(t, 'media');
    const held = t.call('POST', '/subsystems', { as: 'admin', body: { externalId: 'light' } });
    expect(await settled(held)).toBe(false);
    // The timer comes due first (the request thread was held by a long task); the pool's answer is next.
    timing.fireOnce();
    expect(timing.armed()).toEqual([0]);
    wal.release();
    expect((await held).status).toBe(201);
    timing.fire();
    expect(wal.here).toBe(0);
    // Nothing was switched: the next write waits for the pool, its stall timer armed.
    const next = t.call('POST', '/subsystems', { as: 'admin', body: { externalId: 'sound' } });
    expect(await settled(next)).toBe(false);
    expect(timing.armed()).toEqual([STALL_MS]);
    wal.release();
    expect((await next).status).toBe(201);
  });

  it('answers a write to a real file while password hashes fill the thread pool', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pms-test-durability-'));
    const sqlite = openSqlite(join(dir, 'pms.db'));
    try {
      sqlite.run('CREATE TABLE t (v INTEGER)');
      const durability = new Durability(sqlite, walSync(join(dir, 'pms.db')));
      sqlite.run('INSERT INTO t VALUES (1)');
      await durability.whenDurable();
      // More slow hashes than the pool has threads (as many as the machine has cores), as sign-ins do.
      let firstHashed = false;
      const hashes = Array.from({ length: navigator.hardwareConcurrency }, () =>
        Bun.password.hash('a long password', { algorithm: 'argon2id', memoryCost: 19456, timeCost: 6 }).then(() => {
          firstHashed = true;
        }),
      );
      sqlite.run('INSERT INTO t VALUES (2)');
      await durability.whenDurable();
      // Without the stall timer this waited for a pool thread: until the first hash was done.
      expect(firstHashed).toBe(false);
      await Promise.all(hashes);
    } finally {
      sqlite.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
