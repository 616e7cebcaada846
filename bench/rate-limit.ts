/**
 * In-process cost of the flood limiter on the value-write path, without HTTP noise: the test
 * harness's app with budgets far above the load, one request whose caller (an integration token) is
 * already decided (as it is by the time the value door counts it: the same lookup serves the auth
 * check), and `limitValueWrite` called N times on the fake clock moving 50 µs per call (20 000/s).
 * Prints ns per call, for one caller and spread over KEYS callers, median of PAIRS rounds. Set it
 * beside pmsd's CPU per value write from bench/ingest.ts (tens of µs) to see its share.
 *
 *   bun bench/rate-limit.ts        (N=1000000 KEYS=5000 PAIRS=5)
 */
import { validCaller } from '../src/http/auth';
import { limitValueWrite, RateTable } from '../src/http/rate-limit';
import { makeTestApp } from '../tests/helpers/app';

const N = Number(process.env.N ?? 1_000_000);
const KEYS = Number(process.env.KEYS ?? 5_000);
const PAIRS = Number(process.env.PAIRS ?? 5);

const t = makeTestApp({
  config: { rateLimits: { requestsPerSecond: 1e6, requestBurst: 1e6, ingestPerSecond: 1e6, ingestBurst: 1e6 } },
});
const request = new Request('http://localhost/api/v1/variables/1/value', {
  method: 'POST',
  headers: { authorization: `Bearer ${t.tokenFor('integration')}` },
});
if (validCaller(t.deps, request) === null) throw new Error('the token did not authenticate');

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;

function timeDoor(): number {
  const start = Bun.nanoseconds();
  for (let i = 0; i < N; i++) {
    t.clock.advance(0.05);
    limitValueWrite(t.deps, request);
  }
  return (Bun.nanoseconds() - start) / N;
}

function timeTable(keys: string[]): number {
  const table = new RateTable();
  let now = 0;
  const start = Bun.nanoseconds();
  for (let i = 0; i < N; i++) {
    now += 0.05;
    if (table.take(keys[i % keys.length] ?? '', now, 1e6, 1e6) > 0) throw new Error('refused');
  }
  return (Bun.nanoseconds() - start) / N;
}

/** The same loop without the limiter call, so the loop's own cost can be taken off. */
function timeEmpty(): number {
  const start = Bun.nanoseconds();
  for (let i = 0; i < N; i++) t.clock.advance(0.05);
  return (Bun.nanoseconds() - start) / N;
}

const keys = Array.from({ length: KEYS }, (_, i) => `token:${i}`);
const door: number[] = [];
const one: number[] = [];
const many: number[] = [];
const empty: number[] = [];
for (let p = 0; p < PAIRS; p++) {
  door.push(timeDoor());
  empty.push(timeEmpty());
  one.push(timeTable(['token:1']));
  many.push(timeTable(keys));
}
console.log(
  `limitValueWrite (settings read, caller memo, one key): ${(median(door) - median(empty)).toFixed(0)} ns per call (loop alone ${median(empty).toFixed(0)} ns); RateTable.take: one key ${median(one).toFixed(0)} ns, ${KEYS} keys ${median(many).toFixed(0)} ns`,
);
