/**
 * Acknowledged writes survive a power cut (db/durability.ts): a write's answer waits for the WAL's
 * sync, a read's never does, and one sync covers every write made before it began.
 */
import { describe, expect, it } from 'bun:test';
import { addSubsystem, makeTestApp } from '../../tests/helpers/app';

/** A WAL sync the test finishes by hand, counting the calls. */
function heldSync() {
  const pending: Array<() => void> = [];
  let calls = 0;
  return {
    sync: () => {
      calls += 1;
      return new Promise<void>((resolve) => pending.push(resolve));
    },
    release: () => {
      for (const done of pending.splice(0)) done();
    },
    get calls() {
      return calls;
    },
    get waiting() {
      return pending.length;
    },
  };
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
    const t = makeTestApp({ config: { durability: 'power-cut' }, walSync: wal.sync });
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
    const t = makeTestApp({ config: { durability: 'power-cut' }, walSync: wal.sync });
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
    const t = makeTestApp({ config: { durability: 'power-cut' }, walSync: wal.sync });
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
    const t = makeTestApp({ config: { durability: 'power-cut' }, walSync: wal.sync });
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
    const t = makeTestApp({ config: { durability: 'power-cut' }, walSync: wal.sync });
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
});
