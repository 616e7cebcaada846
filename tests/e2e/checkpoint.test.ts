/**
 * The WAL checkpoint thread in the compiled executable (src/db/checkpointer.ts): its module is the
 * executable's second entrypoint (build/compile.ts), and nothing but this suite would notice it
 * missing (the daemon would log the failure and fall back to SQLite's own checkpoint).
 */
import { describe, expect, it } from 'bun:test';
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { ADMIN_PASSWORD, E2E_ENABLED, sessionOf, suiteDaemon } from './daemon';

describe.skipIf(!E2E_ENABLED)('checkpoint thread (compiled)', () => {
  const suite = suiteDaemon({ PMS_INITIAL_ADMIN_PASSWORD: ADMIN_PASSWORD, PMS_LOG_LEVEL: 'debug' });

  it('runs in the executable: writes are checkpointed and the WAL starts again', async () => {
    const daemon = suite.running();
    const session = await sessionOf(daemon, 'admin', ADMIN_PASSWORD);
    const api = (method: string, path: string, body: unknown) =>
      fetch(`${daemon.baseUrl}/api/v1${path}`, {
        method,
        headers: { authorization: `Bearer ${session}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    expect((await api('POST', '/subsystems', { externalId: 'wal' })).status).toBe(201);
    const variable = await api('POST', '/variables', { subsystemExternalId: 'wal', externalRef: 'v' });
    const id = ((await variable.json()) as { _id: number })._id;
    for (let round = 0; round < 40; round++) {
      const writes = Array.from({ length: 50 }, (_, i) =>
        api('POST', `/variables/${id}/value`, { value: `${round}-${i}` }),
      );
      for (const res of await Promise.all(writes)) expect(res.status).toBe(200);
    }
    const log = () => daemon.output.stdout.text;
    for (let i = 0; i < 50 && !log().includes('"msg":"wal checkpoint"'); i++) await Bun.sleep(100);
    expect(log()).toContain('"msg":"wal checkpoint"');
    expect(log()).not.toContain('checkpoint thread');
    // Everything was copied back: a write starts the WAL from its beginning, and it stays small.
    await Bun.sleep(1500);
    expect((await api('POST', `/variables/${id}/value`, { value: 'last' })).status).toBe(200);
    const wal = statSync(join(suite.sandbox().dataDir, 'pms.db-wal')).size;
    expect(wal).toBeLessThan(64 * 1024 * 1024);
  });
});
