/**
 * No acknowledged value write is lost in a crash: the compiled daemon takes a stream of value writes
 * on several variables at once, is killed with SIGKILL in the middle of it, is started again on the
 * same data, and every value it had answered 2xx is there — as the last value or in the history.
 * Runs only with PMS_E2E=1 (after `npm run build`).
 */
import { describe, expect, it } from 'bun:test';
import { ADMIN_PASSWORD, type Daemon, E2E_ENABLED, sessionOf, suiteDaemon } from './daemon';

const WRITERS = 16;
const RUN_MS = 1500;

describe.skipIf(!E2E_ENABLED)('pmsd (compiled): crash safety of value writes', () => {
  const suite = suiteDaemon(null);

  it('keeps every acknowledged value across kill -9', async () => {
    // Loopback is trusted by default: the writers act as an integration, like field clients; the
    // subsystem itself is created by the initial administrator.
    // The ingest flood budget is off: this measures durability, and 16 writers on loopback outrun
    // the default 10 000 values/s (the limiter has tests of its own).
    let daemon = await suite.start({ PMS_INITIAL_ADMIN_PASSWORD: ADMIN_PASSWORD, PMS_RATE_LIMIT_INGEST: '0' });
    const api = (d: Daemon) => `${d.baseUrl}/api/v1`;
    const json = { 'content-type': 'application/json' };
    const session = await sessionOf(daemon, 'admin', ADMIN_PASSWORD);
    const admin = { ...json, authorization: `Bearer ${session}` };
    expect(
      (await fetch(`${api(daemon)}/subsystems`, { method: 'POST', headers: admin, body: '{"externalId":"crash"}' }))
        .status,
    ).toBe(201);
    const ids: number[] = [];
    for (let i = 0; i < WRITERS; i++) {
      const res = await fetch(`${api(daemon)}/variables`, {
        method: 'POST',
        headers: json,
        body: JSON.stringify({ subsystemExternalId: 'crash', externalRef: `v${i}` }),
      });
      expect(res.status).toBe(201);
      ids.push(((await res.json()) as { _id: number })._id);
    }

    const running = daemon;
    const acknowledged = ids.map(() => [] as string[]);
    let stop = false;
    const writers = ids.map(async (id, i) => {
      for (let n = 1; !stop; n++) {
        const value = `${i}:${n}`;
        try {
          const res = await fetch(`${api(running)}/variables/${id}/value`, {
            method: 'POST',
            headers: json,
            body: JSON.stringify({ value }),
          });
          if (res.status === 200) acknowledged[i]?.push(value);
          else if (!stop) throw new Error(`write answered ${res.status}`);
        } catch (err) {
          if (!stop) throw err;
          return;
        }
      }
    });
    await Bun.sleep(RUN_MS);
    stop = true;
    running.proc.kill('SIGKILL');
    await Promise.allSettled(writers);
    await running.proc.exited;
    const total = acknowledged.reduce((n, list) => n + list.length, 0);
    console.log(`acknowledged ${total} writes before the kill`);
    expect(total).toBeGreaterThan(WRITERS * 10);

    daemon = await suite.start();
    for (const [i, id] of ids.entries()) {
      const acked = acknowledged[i] ?? [];
      const variable = (await (await fetch(`${api(daemon)}/variables/${id}`)).json()) as { lastValue: string };
      const last = acked[acked.length - 1];
      if (last !== undefined) {
        // The last write may have committed without its answer arriving: it can only be later.
        const stored = Number(variable.lastValue.split(':')[1]);
        expect(stored).toBeGreaterThanOrEqual(Number(last.split(':')[1]));
      }
      const history = (await (await fetch(`${api(daemon)}/variables/${id}/history?limit=10000`)).json()) as Array<{
        value: string;
      }>;
      const kept = new Set(history.map((h) => h.value));
      const missing = acked.filter((v) => !kept.has(v));
      expect(missing).toEqual([]);
    }
  }, 60_000);
});
