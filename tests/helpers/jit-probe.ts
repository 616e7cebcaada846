/**
 * Run as a process of its own by src/jit-policy.test.ts: `bun jit-probe.ts <policy|normal> <limit>`.
 * Calls a small function in rounds of 500, pausing after each round for the compiler threads, with
 * or without src/jit-policy.ts loaded first, until the DFG has compiled it or <limit> calls were
 * made; prints how many calls that took (null: not compiled within the limit).
 */
import { numberOfDFGCompiles } from 'bun:jsc';

if (process.argv[2] === 'policy') await import('../../src/jit-policy');
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
