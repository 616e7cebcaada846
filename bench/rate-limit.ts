/**
 * In-process cost of the flood limiter on the value-write path, without HTTP noise: the test
 * harness's app with budgets far above the load, one request whose caller (an integration token) is
 * already decided (as it is by the time the value door counts it: the same lookup serves the auth
 * check), and `limitValueWrite` called N times on the fake clock moving 50 µs per call (20 000/s).
 * Prints ns per call, for one caller and spread over KEYS callers, median of PAIRS rounds. Set it
 * beside pmsd's CPU per value write from bench/ingest.ts (tens of µs) to see its share.
 *
 * Then the whole value write through `app.handle` (the value door, auth, body, writer, history,
 * events) on two apps alike but for the limiter (budgets far above the load / every limit 0), in
 * alternating rounds of ROUNDS writes, as CPU time per write: the share the limiter really costs.
 *
 *   bun bench/rate-limit.ts        (N=1000000 KEYS=5000 PAIRS=5 ROUNDS=20000)
 */
import { validCaller } from '../src/http/auth';
import { limitValueWrite } from '../src/http/rate-limit';
import { RateTable } from '../src/http/rate-table';
import { addSubsystem, makeTestApp, type TestApp } from '../tests/helpers/app';

const N = Number(process.env.N ?? 1_000_000);
const KEYS = Number(process.env.KEYS ?? 5_000);
const PAIRS = Number(process.env.PAIRS ?? 5);
const ROUNDS = Number(process.env.ROUNDS ?? 20_000);

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

const OFF = { requestsPerSecond: 0, ingestPerSecond: 0, heartbeatsPerSecond: 0, loginFailuresPerAddress: 0 };
const ON = { requestsPerSecond: 1e6, requestBurst: 1e6, ingestPerSecond: 1e6, ingestBurst: 1e6 };

async function valueApp(rateLimits: typeof ON | typeof OFF): Promise<{ app: TestApp; write: (i: number) => Request }> {
  const app = makeTestApp({ config: { rateLimits } });
  await addSubsystem(app, 'bench');
  const created = await app.call('POST', '/variables', {
    as: 'admin',
    body: { subsystemExternalId: 'bench', externalRef: 'v' },
  });
  const token = app.tokenFor('integration');
  const url = `http://localhost/api/v1/variables/${created.body._id}/value`;
  const write = (i: number) =>
    new Request(url, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: `{"value":"${i}"}`,
    });
  return { app, write };
}

/** CPU µs per value write over ROUNDS writes, 64 at a time as wrk's connections would send them. */
async function cpuPerWrite(target: { app: TestApp; write: (i: number) => Request }): Promise<number> {
  const before = process.cpuUsage();
  for (let i = 0; i < ROUNDS; i += 64) {
    const answers = await Promise.all(Array.from({ length: 64 }, (_, j) => target.app.app.handle(target.write(i + j))));
    for (const res of answers) if (res.status !== 200) throw new Error(`write answered ${res.status}`);
    target.app.clock.advance(5);
  }
  const used = process.cpuUsage(before);
  return (used.user + used.system) / ROUNDS;
}

const limited = await valueApp(ON);
const unlimited = await valueApp(OFF);
await cpuPerWrite(limited);
await cpuPerWrite(unlimited);
const on: number[] = [];
const off: number[] = [];
for (let p = 0; p < PAIRS; p++) {
  if (p % 2 === 0) {
    on.push(await cpuPerWrite(limited));
    off.push(await cpuPerWrite(unlimited));
  } else {
    off.push(await cpuPerWrite(unlimited));
    on.push(await cpuPerWrite(limited));
  }
}
console.log(
  `whole value write through app.handle: limiter on ${median(on).toFixed(2)} µs CPU, off ${median(off).toFixed(2)} µs CPU (on/off ${(median(on) / median(off)).toFixed(3)}; pairs ${on.map((v, i) => (v / (off[i] ?? v)).toFixed(3)).join(' ')})`,
);
