/**
 * Run as a process of its own by src/jit-policy.test.ts: `bun jit-probe.ts <policy|normal> <calls>`.
 * Calls a small function <calls> times (twice, with a pause for the compiler threads), with or
 * without src/jit-policy.ts loaded first, and prints how many times the DFG compiled it.
 */
import { numberOfDFGCompiles } from 'bun:jsc';

if (process.argv[2] === 'policy') await import('../../src/jit-policy');
const calls = Number(process.argv[3]);
function probe(n: number): number {
  return (n * 31) % 7;
}
let sum = 0;
for (let round = 0; round < 2; round++) {
  for (let i = 0; i < calls; i++) sum += probe(i);
  await Bun.sleep(300);
}
console.log(JSON.stringify({ dfg: numberOfDFGCompiles(probe), sum }));
