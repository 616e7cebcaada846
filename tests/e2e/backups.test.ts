/**
 * Backups in the compiled executable (§17): the archive is packed, verified and unpacked on the backup
 * thread (an entrypoint of the executable, build/compile.ts; without it every backup would run on the
 * request thread and say so); a restore ends with the daemon exiting 75 and its next start serving the
 * restored data; and `kill -9` at random moments of a restore (at least 20 runs) always leaves the old
 * data or the new, whole, and a daemon that starts; with a passphrase, an encrypted archive (argon2id
 * is in a chunk of its own, build/compile.ts `--splitting`, imported when first used).
 */
import { describe, expect, it } from 'bun:test';
import { createHash } from 'node:crypto';
import { connect } from 'node:net';
import { RESTORE_EXIT_CODE } from '../../src/modules/backups/swap';
import { seededRandom } from '../../src/prng';
import { ADMIN_PASSWORD, type Daemon, E2E_ENABLED, sessionOf, suiteDaemon } from './daemon';

const ENV = { PMS_INITIAL_ADMIN_PASSWORD: ADMIN_PASSWORD, PMS_LOG_LEVEL: 'warn' };
const RUNS = Number(process.env.PMS_E2E_RESTORE_RUNS ?? 20);

async function call(daemon: Daemon, session: string, method: string, path: string, body?: unknown) {
  const res = await fetch(`${daemon.baseUrl}/api/v1${path}`, {
    method,
    headers: {
      authorization: `Bearer ${session}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
}

async function upload(daemon: Daemon, session: string, name: string, bytes: Uint8Array): Promise<string> {
  const res = await fetch(`${daemon.baseUrl}/api/v1/objects/cms-media/${name}/content`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${session}`, 'content-length': String(bytes.length) },
    body: bytes,
  });
  if (res.status !== 201) throw new Error(`upload ${name}: ${res.status} ${await res.text()}`);
  return createHash('sha256').update(bytes).digest('hex');
}

/** The SHA-256 of an object's content found by name, or null when there is no such object or content. */
async function contentSha(daemon: Daemon, session: string, name: string): Promise<string | null> {
  const found = await call(daemon, session, 'GET', `/objects/cms-media/${name}`);
  if (found.status !== 200) return null;
  const res = await fetch(`${daemon.baseUrl}/api/v1/objects/${found.body._id}/content`, {
    headers: { authorization: `Bearer ${session}` },
  });
  if (res.status !== 200) return null;
  return createHash('sha256')
    .update(new Uint8Array(await res.arrayBuffer()))
    .digest('hex');
}

async function waitFor<T>(what: string, probe: () => Promise<T | null>, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const value = await probe();
    if (value !== null) return value;
    await Bun.sleep(50);
  }
  throw new Error(`timed out waiting for ${what}`);
}

const bytesOf = (seed: number, size: number) => new Uint8Array(size).map((_, i) => (i * seed + 7) % 251);

describe.skipIf(!E2E_ENABLED)('backups (compiled)', () => {
  const suite = suiteDaemon(null);

  it('backs up on its thread, restores, exits 75, and the next start serves the restored data', async () => {
    let daemon = await suite.start(ENV);
    let session = await sessionOf(daemon, 'admin', ADMIN_PASSWORD);
    expect((await call(daemon, session, 'POST', '/subsystems', { externalId: 'in-archive' })).status).toBe(201);
    const archived = await upload(daemon, session, 'archived.bin', bytesOf(3, 2 * 1024 * 1024));
    const start = await call(daemon, session, 'POST', '/backups/createBackup', { displayName: 'e2e' });
    expect(start.status).toBe(202);
    const done = await waitFor('the backup', async () => {
      const b = await call(daemon, session, 'GET', `/backups/${start.body._id}`);
      return b.body.status === 'running' ? null : b.body;
    });
    expect(done).toMatchObject({ status: 'complete', isValid: true });
    expect(daemon.output.stdout.text).not.toContain('backup thread cannot start');
    // The live data moves on: the archive does not know these.
    await call(daemon, session, 'DELETE', '/subsystems/in-archive');
    expect((await call(daemon, session, 'POST', '/subsystems', { externalId: 'after-archive' })).status).toBe(201);

    const restore = await call(daemon, session, 'PUT', `/backups/${start.body._id}/restore`, { confirm: true });
    expect(restore.status).toBe(202);
    expect(await daemon.proc.exited).toBe(RESTORE_EXIT_CODE);

    daemon = await suite.start(ENV);
    session = await sessionOf(daemon, 'admin', ADMIN_PASSWORD);
    expect((await call(daemon, session, 'GET', '/subsystems/in-archive')).status).toBe(200);
    expect((await call(daemon, session, 'GET', '/subsystems/after-archive')).status).toBe(404);
    expect(await contentSha(daemon, session, 'archived.bin')).toBe(archived);
    const record = await call(daemon, session, 'GET', `/backups/${start.body._id}`);
    expect(record.body.job).toMatchObject({ type: 'restore', state: 'succeeded' });
    expect((await daemon.stop()).code).toBe(0);
  }, 120_000);

  it(`kill -9 at random moments of a restore (${RUNS} runs) leaves the old data or the new, whole`, async () => {
    const rand = seededRandom(Number(process.env.PMS_E2E_SEED ?? 14));
    let daemon = await suite.start(ENV);
    let session = await sessionOf(daemon, 'admin', ADMIN_PASSWORD);
    const backups = (await call(daemon, session, 'GET', '/backups?type=manual')).body as { _id: number }[];
    const backupId = backups[0]?._id;
    if (backupId === undefined) throw new Error('the first test leaves a backup');
    const archived = await contentSha(daemon, session, 'archived.bin');
    // How long a whole restore takes here, from the request to the exit, to spread the kills over.
    const timed = performance.now();
    await call(daemon, session, 'PUT', `/backups/${backupId}/restore`, { confirm: true });
    await daemon.proc.exited;
    const whole = performance.now() - timed;
    const outcomes = { old: 0, new: 0 };
    for (let run = 0; run < RUNS; run++) {
      daemon = await suite.start(ENV);
      session = await sessionOf(daemon, 'admin', ADMIN_PASSWORD);
      // What only the live data holds this run: a subsystem and a media file.
      const marker = `run-${run}`;
      expect((await call(daemon, session, 'POST', '/subsystems', { externalId: marker })).status).toBe(201);
      const own = await upload(daemon, session, `${marker}.bin`, bytesOf(run + 5, 64 * 1024));
      const res = await call(daemon, session, 'PUT', `/backups/${backupId}/restore`, { confirm: true });
      expect(res.status).toBe(202);
      // Anywhere from the request to well past the first restore's length: each run's restore is a
      // little longer (its pre-restore backup holds the media the runs added), and a kill after the
      // exit finds a daemon already gone, which is the plain case of a decided swap.
      await Bun.sleep(rand() * whole * 2);
      daemon.proc.kill('SIGKILL');
      await daemon.proc.exited;

      daemon = await suite.start(ENV);
      session = await sessionOf(daemon, 'admin', ADMIN_PASSWORD);
      const hasMarker = (await call(daemon, session, 'GET', `/subsystems/${marker}`)).status === 200;
      if (hasMarker) {
        // The old data, whole: its own media readable and unchanged.
        expect(await contentSha(daemon, session, `${marker}.bin`)).toBe(own);
        outcomes.old++;
      } else {
        // The new data, whole: the archive's database and its media.
        expect((await call(daemon, session, 'GET', `/objects/cms-media/${marker}.bin`)).status).toBe(404);
        expect((await call(daemon, session, 'GET', '/subsystems/in-archive')).status).toBe(200);
        outcomes.new++;
      }
      expect(await contentSha(daemon, session, 'archived.bin')).toBe(archived);
      expect((await daemon.stop('SIGKILL')).code).not.toBeNull();
    }
    process.stderr.write(
      `restore kill -9: ${JSON.stringify(outcomes)} over ${RUNS} runs (a restore took ${Math.round(whole)} ms)\n`,
    );
    expect(outcomes.old + outcomes.new).toBe(RUNS);
  }, 600_000);

  it('with a passphrase set, makes and verifies an encrypted archive (the argon2id code is a chunk loaded when first used)', async () => {
    const daemon = await suite.start(ENV);
    const session = await sessionOf(daemon, 'admin', ADMIN_PASSWORD);
    const set = await call(daemon, session, 'PATCH', '/settings', { backups: { passphrase: 'a passphrase for e2e' } });
    expect(set.status).toBe(200);
    expect(set.body.backups.passphraseSet).toBe(true);
    const start = await call(daemon, session, 'POST', '/backups/createBackup', { displayName: 'sealed' });
    expect(start.status).toBe(202);
    const done = await waitFor('the encrypted backup', async () => {
      const b = await call(daemon, session, 'GET', `/backups/${start.body._id}`);
      return b.body.status === 'running' ? null : b.body;
    });
    expect(done).toMatchObject({ status: 'complete', isValid: true, encrypted: true });
    expect(done.object).toEndWith('.tar.gz.enc');
    expect(daemon.output.stdout.text).not.toContain('backup thread cannot start');
    expect((await daemon.stop()).code).toBe(0);
  }, 120_000);
  it('an upload its client cuts off is a 400 nobody reads, not a server error, and frees the job slot', async () => {
    const daemon = await suite.start(ENV);
    const session = await sessionOf(daemon, 'admin', ADMIN_PASSWORD);
    await new Promise<void>((resolve, reject) => {
      const socket = connect(daemon.httpPort, '127.0.0.1', () => {
        socket.write(
          `POST /api/v1/backups/upload HTTP/1.1\r\nHost: pms\r\nAuthorization: Bearer ${session}\r\n` +
            'Content-Type: application/octet-stream\r\nContent-Length: 200000\r\n\r\n',
        );
        socket.write(new Uint8Array(20_000), () => setTimeout(() => socket.destroy(), 200));
      });
      socket.on('close', () => resolve());
      socket.on('error', reject);
    });
    const start = await waitFor('the job slot', async () => {
      const res = await call(daemon, session, 'POST', '/backups/createBackup', { displayName: 'after a cut upload' });
      return res.status === 409 ? null : res;
    });
    expect(start.status).toBe(202);
    // At warn, the log holds only what went wrong: a cut upload was logged as a server fault (level 50).
    expect(daemon.output.stdout.text).not.toContain('"level":50');
    expect((await daemon.stop()).code).toBe(0);
  });
});
