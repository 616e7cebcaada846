/**
 * kill -9 torture, CI size: a few cycles of mixed writes (values, configuration, schedule, webhook
 * deliveries pending) against the compiled daemon, each ended by SIGKILL at a random moment; after
 * each kill the database passes `PRAGMA integrity_check` and holds every write answered 2xx. The
 * full run is `CYCLES=50 bun scripts/torture.ts`. Runs only with PMS_E2E=1 (after `npm run build`).
 */
import { describe, expect, it } from 'bun:test';
import { existsSync } from 'node:fs';
import { BUILT_BINARY, E2E_ENABLED } from './daemon';
import { runTorture } from './torture-run';

const CYCLES = 5;

describe.skipIf(!E2E_ENABLED)('pmsd (compiled): kill -9 torture', () => {
  it(`loses no acknowledged write and keeps the file intact over ${CYCLES} kills`, async () => {
    expect(existsSync(BUILT_BINARY)).toBe(true);
    const figures = await runTorture({ cycles: CYCLES, log: (line) => console.log(line) });
    expect(figures.lost).toEqual([]);
    expect(figures.integrityOk).toBe(CYCLES);
    expect(figures.cycles).toBe(CYCLES);
    // The load did run: a kill before any answer would prove nothing.
    expect(figures.valueWrites).toBeGreaterThan(CYCLES * 8);
    expect(figures.exitCodeOfFinalSigterm).toBe(0);
  }, 60_000);
});
