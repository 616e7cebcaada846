/**
 * Run as a process of its own by src/jit-policy.test.ts: `bun jit-probe.ts <mode> <limit>`.
 * Calls a small function in rounds of 500, pausing after each round for the compiler threads, until
 * the DFG has compiled it or <limit> calls were made; prints how many calls that took (null: not
 * compiled within the limit). Modes: `normal` (src/jit-policy.ts not loaded), `policy` (loaded first),
 * `busy` (loaded, then the daemon turned busy: `jitForLoad(true)`), `busy-quiet` (busy, then quiet
 * again: `jitForLoad(false)`).
 */
import { numberOfDFGCompiles } from 'bun:jsc';

const mode = process.argv[2];
if (mode !== 'normal') {
  const { jitForLoad } = await import('../../src/jit-policy');
  if (mode === 'busy' || mode === 'busy-quiet') jitForLoad(true);
  if (mode === 'busy-quiet') jitForLoad(false);
}
const limit = Number(process.argv[3]);
const ROUND = 500;
function probe(n: number): number {
  return (n * 31) % 7;
}
let sum = 0;
let calls = 0;
while (numberOfDFGCompiles(probe) === 0 && calls < limit) {
  for (let i = 0; i < ROUND; i++) sum += probe(i);
  calls += ROUND;
  await Bun.sleep(50);
}
console.log(JSON.stringify({ compiledAfter: numberOfDFGCompiles(probe) > 0 ? calls : null, sum }));
