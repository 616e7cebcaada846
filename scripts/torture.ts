/**
 * The full kill -9 torture against dist/pmsd (build it first: `npm run build`):
 *
 *   CYCLES=50 bun scripts/torture.ts
 *
 * Prints one line per cycle and the totals; exits 1 when a write answered 2xx was lost, the
 * database failed `PRAGMA integrity_check` or the final SIGTERM did not exit 0. The CI-sized run is
 * tests/e2e/torture.test.ts; both use tests/e2e/torture-run.ts.
 */
import { existsSync } from 'node:fs';
import { BUILT_BINARY } from '../tests/e2e/daemon';
import { runTorture } from '../tests/e2e/torture-run';

const cycles = Number(process.env.CYCLES ?? 50);
if (!Number.isInteger(cycles) || cycles < 1) throw new Error('CYCLES must be a positive integer');
if (!existsSync(BUILT_BINARY)) throw new Error(`${BUILT_BINARY} is missing; run npm run build first`);

const figures = await runTorture({ cycles, log: (line) => console.log(line) });
const ok = figures.lost.length === 0 && figures.integrityOk === figures.cycles && figures.exitCodeOfFinalSigterm === 0;
console.log(
  [
    `cycles: ${figures.cycles}`,
    `writes acknowledged: ${figures.acknowledged} (${figures.valueWrites} value writes)`,
    `lost: ${figures.lost.length}${figures.lost.length > 0 ? ` (${figures.lost.slice(0, 10).join(', ')})` : ''}`,
    `integrity_check ok: ${figures.integrityOk}/${figures.cycles}`,
    `kills with webhook deliveries pending: ${figures.cyclesWithPendingDeliveries}/${figures.cycles}`,
    `final SIGTERM exit code: ${figures.exitCodeOfFinalSigterm}`,
    `duration: ${(figures.ms / 1000).toFixed(1)} s`,
    ok ? 'PASS' : 'FAIL',
  ].join('\n'),
);
process.exit(ok ? 0 : 1);
