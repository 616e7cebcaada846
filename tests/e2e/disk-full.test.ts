/**
 * A real full disk under the compiled daemon: its data directory is a 16 MiB tmpfs, and a filler
 * file takes the rest of it. Writes answer 507 with the one error body, reads keep working, the
 * file stays intact with nothing of a refused write in it, and once the filler is deleted writes
 * succeed again without a restart. Runs only with PMS_E2E=1, and only where this process may mount
 * a tmpfs (root); skipped otherwise (src/db/disk-full.test.ts covers the same answers in-process).
 */
import { Database } from 'bun:sqlite';
import { afterAll, describe, expect, it } from 'bun:test';
import { closeSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ADMIN_PASSWORD, E2E_ENABLED, sessionOf, suiteDaemon, until } from './daemon';
import { clientOf } from './torture-load';

/** Mounts a tmpfs for the suite; null where mounting is not allowed (not root, no CAP_SYS_ADMIN). */
function mountTmpfs(): string | null {
  const dir = mkdtempSync(join(tmpdir(), 'pmsd-full-'));
  const mount = Bun.spawnSync(['mount', '-t', 'tmpfs', '-o', 'size=16m,mode=0700', 'tmpfs', dir], {
    stdout: 'ignore',
    stderr: 'ignore',
  });
  if (mount.exitCode === 0) return dir;
  rmSync(dir, { recursive: true, force: true });
  return null;
}

/** Writes a file until the filesystem refuses another byte. */
function fillUp(path: string): number {
  const fd = openSync(path, 'w');
  let written = 0;
  try {
    for (const size of [1 << 20, 64 << 10, 4 << 10, 1]) {
      const chunk = Buffer.alloc(size, 0x5a);
      try {
        for (;;) written += writeSync(fd, chunk);
      } catch (err) {
        if ((err as { code?: string }).code !== 'ENOSPC') throw err;
      }
    }
  } finally {
    closeSync(fd);
  }
  return written;
}

const mountPoint = E2E_ENABLED ? mountTmpfs() : null;
if (E2E_ENABLED && mountPoint === null) console.log('disk-full e2e skipped: cannot mount a tmpfs here (needs root)');

describe.skipIf(mountPoint === null)('pmsd (compiled): a full disk', () => {
  const suite = suiteDaemon(null);
  const dataDir = join(mountPoint ?? '/nonexistent', 'data');
  afterAll(async () => {
    // The daemon must be gone before the unmount (suiteDaemon's own afterAll may run after this one).
    try {
      await suite.running().stop('SIGKILL');
    } catch {
      // never started
    }
    if (!mountPoint) return;
    if (Bun.spawnSync(['umount', mountPoint]).exitCode !== 0) Bun.spawnSync(['umount', '-l', mountPoint]);
    rmSync(mountPoint, { recursive: true, force: true });
  });

  it('answers writes 507, keeps reads, leaves nothing half-written and recovers when space returns', async () => {
    const daemon = await suite.start({ PMS_DATA_DIR: dataDir, PMS_INITIAL_ADMIN_PASSWORD: ADMIN_PASSWORD });
    const client = clientOf(daemon, await sessionOf(daemon, 'admin', ADMIN_PASSWORD));
    expect((await client.call('POST', '/subsystems', { externalId: 'disk' })).status).toBe(201);
    const created = await client.call('POST', '/variables', { subsystemExternalId: 'disk', externalRef: 'v' });
    const id = (created.body as { _id: number })._id;
    const received: string[] = [];
    const receiver = Bun.serve({
      port: 0,
      hostname: '127.0.0.1',
      fetch: async (req) => {
        received.push(await req.text());
        return new Response(null, { status: 204 });
      },
    });
    const hook = { displayName: 'r', url: `http://127.0.0.1:${receiver.port}/`, allowPrivateNetwork: true };
    expect((await client.call('POST', '/webhook', { ...hook, events: ['variable.changed'] })).status).toBe(201);
    expect((await client.call('POST', `/variables/${id}/value`, { value: 'before' })).status).toBe(200);
    const heartbeat = () => fetch(`${daemon.baseUrl}/api/v1/subsystems/disk/heartbeat`, { method: 'PUT' });
    // The first heartbeat stores the subsystem's address; later ones store nothing the answer waits on.
    expect((await heartbeat()).status).toBe(200);

    const filler = join(mountPoint ?? '', 'filler');
    expect(fillUp(filler)).toBeGreaterThan(0);

    // SQLite may still have room in its own files for a few writes (and find room again between two,
    // when the checkpoint thread lets the WAL start again from its beginning): each kind of write below
    // writes until the disk says no.
    const untilRefused = async (write: (n: number) => Promise<{ status: number; body: unknown }>) => {
      for (let n = 0; n < 2000; n++) {
        const res = await write(n);
        if (res.status >= 300) return { ...res, n };
      }
      throw new Error('the disk never refused a write');
    };
    const value = (n: number) => `full ${n} ${'x'.repeat(500)}`;
    let accepted = 'before';
    /** A value write (by `_id`, or by reference from 3000 on), remembered when it was taken. */
    const writeValue = async (n: number, path: string, method: string) => {
      const res = await client.call(method, path, { value: value(n) });
      if (res.status === 200) accepted = value(n);
      return res;
    };
    const refused = await untilRefused((n) => writeValue(n, `/variables/${id}/value`, 'POST'));
    expect(refused.status).toBe(507);
    const body = refused.body as Record<string, unknown>;
    expect(body).toEqual({
      statusCode: 507,
      code: 'insufficient_storage',
      message: 'the disk is full; nothing was changed',
      requestId: expect.any(String),
    });
    // The doors and the writer jobs answer it the same way: a new event, a value write by reference,
    // a log post.
    const event = await untilRefused((n) =>
      client.call('POST', '/events', { subsystemExternalId: 'disk', externalRef: `e${n}`, command: 'GO' }),
    );
    expect(event.status).toBe(507);
    const byRef = await untilRefused((n) => writeValue(3000 + n, '/subsystems/disk/variables/v/lastValue', 'PUT'));
    expect(byRef.status).toBe(507);
    expect(byRef.body).toEqual({ ...body, requestId: expect.any(String) });
    const posted = await untilRefused((n) => client.call('POST', '/logs', { key: 'disk.note', value: `refused ${n}` }));
    expect(posted.status).toBe(507);

    // Heartbeats keep being answered while background work (contact times, the health and alert
    // ticks, the webhook dispatcher) fails to write for a while: the daemon logs it and stays up.
    for (let i = 0; i < 25; i++) {
      expect((await heartbeat()).status).toBe(200);
      await Bun.sleep(100);
    }
    expect(daemon.proc.exitCode).toBeNull();

    // Reads keep working and show nothing of the refused writes.
    expect((await fetch(`${daemon.baseUrl}/api/v1/health`)).status).toBe(200);
    const read = await client.call('GET', `/variables/${id}`);
    expect(read.status).toBe(200);
    expect((read.body as { lastValue: string }).lastValue).toBe(accepted);
    const history = await client.call('GET', `/variables/${id}/history`);
    const values = (history.body as Array<{ value: string }>).map((h) => h.value);
    expect(values).not.toContain(value(refused.n));
    expect(values).not.toContain(value(3000 + byRef.n));
    const events = (await client.call('GET', '/events?subsystemExternalId=disk')).body as Array<{
      externalRef: string;
    }>;
    expect(events.map((e) => e.externalRef)).not.toContain(`e${event.n}`);
    const db = new Database(join(dataDir, 'pms.db'), { readonly: true });
    try {
      expect(db.query<{ integrity_check: string }, []>('PRAGMA integrity_check').get()?.integrity_check).toBe('ok');
    } finally {
      db.close();
    }

    // Space returns: writes succeed again, without a restart.
    rmSync(filler);
    expect((await client.call('POST', `/variables/${id}/value`, { value: 'after' })).status).toBe(200);
    const again = await client.call('POST', '/events', {
      subsystemExternalId: 'disk',
      externalRef: 'e',
      command: 'GO',
    });
    expect(again.status).toBe(201);
    expect(((await client.call('GET', `/variables/${id}`)).body as { lastValue: string }).lastValue).toBe('after');
    // The webhook outbox works again too; a refused value was never queued.
    await until(() => received.some((b) => b.includes('"after"')), 10_000);
    expect(received.some((b) => b.includes('"after"'))).toBe(true);
    expect(received.some((b) => b.includes(value(refused.n)))).toBe(false);
    receiver.stop(true);
    expect((await daemon.stop('SIGTERM')).code).toBe(0);
  }, 60_000);
});
