/**
 * In-process cost of fan-out per value write, without HTTP, wrk or a floor server: one daemon (the
 * test harness's app on a temporary on-disk database), one subsystem, 1000 variables, and rounds of
 * 40 concurrent value writes through the same service the ingest route calls (one group-committed
 * batch per round, every write a change). Alternates rounds of ROUND_WRITES × ROUNDS writes with the
 * fan-out detached and attached — one webhook on `variable.changed` (its dispatcher is not running, so
 * this is the outbox's cost in the write path) and one WebSocket subscriber to `variables` on a
 * socket that only counts — and prints the process's CPU time per write for each, median of PAIRS.
 *
 *   bun bench/fanout.ts            (PAIRS=7 ROUNDS=500)
 */

import { authenticateSecret } from '../src/modules/auth/credentials';
import { trustedPrincipal } from '../src/modules/auth/service';
import { setVariableValueJson } from '../src/modules/variables/value-service';
import { makeTestApp } from '../tests/helpers/app';

const PAIRS = Number(process.env.PAIRS ?? 7);
const ROUNDS = Number(process.env.ROUNDS ?? 500);
const ROUND_WRITES = 40;
const VARIABLES = 1000;

const t = makeTestApp();
await t.call('POST', '/subsystems', { as: 'admin', body: { externalId: 'bench' } });
const ids: string[] = [];
for (let i = 0; i < VARIABLES; i++) {
  const res = await t.call('PUT', '/variables', {
    as: 'admin',
    body: { subsystemExternalId: 'bench', externalRef: `v${i}` },
  });
  ids.push(String(res.body._id));
}
const hook = await t.call('POST', '/webhook', {
  as: 'admin',
  body: {
    displayName: 'bench',
    url: 'http://127.0.0.1:9/hook',
    allowPrivateNetwork: true,
    events: ['variable.changed'],
  },
});
const hub = t.deps.wsHub;
const secret = t.tokenFor('admin');
let frames = 0;
const client = hub.open(
  {
    send: (text: string) => {
      frames += 1;
      return text.length;
    },
    getBufferedAmount: () => 0,
    cork: (batch: () => void) => batch(),
    ping: () => {},
    close: () => {},
  },
  '127.0.0.1',
  authenticateSecret(t.deps, secret, () => null),
  { kind: 'secret', secret },
);

async function attach(on: boolean): Promise<void> {
  await t.call('PATCH', `/webhook/${hook.body._id}`, { as: 'admin', body: { active: on } });
  hub.message(client, { type: on ? 'subscribe' : 'unsubscribe', topics: ['variables'] });
  await new Promise((resolve) => setImmediate(resolve));
}

const principal = trustedPrincipal(t.deps, '127.0.0.1');
let n = 0;
/** CPU µs per write over ROUNDS rounds. */
async function measure(): Promise<number> {
  const before = process.cpuUsage();
  for (let r = 0; r < ROUNDS; r++) {
    const writes: Promise<string>[] = [];
    for (let j = 0; j < ROUND_WRITES; j++) {
      n += 1;
      writes.push(setVariableValueJson(t.deps, principal, ids[(n * 7) % VARIABLES] ?? '', { value: String(n) }));
    }
    await Promise.all(writes);
  }
  const used = process.cpuUsage(before);
  return (used.user + used.system) / (ROUNDS * ROUND_WRITES);
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? Number.NaN;
await attach(false);
await measure(); // warm-up
const detached: number[] = [];
const attached: number[] = [];
for (let i = 1; i <= PAIRS; i++) {
  for (const on of i % 2 === 1 ? [false, true] : [true, false]) {
    await attach(on);
    const us = await measure();
    (on ? attached : detached).push(us);
    console.log(`pair ${i} ${on ? 'attached' : 'detached'} ${us.toFixed(2)} µs CPU per write`);
  }
}
const queued = t.deps.sqlite.query<{ n: number }, []>('SELECT count(*) AS n FROM webhook_outbox').get()?.n ?? 0;
console.log(
  `median detached ${median(detached).toFixed(2)} µs, attached ${median(attached).toFixed(2)} µs per write (+${(median(attached) - median(detached)).toFixed(2)} µs); ${frames} WebSocket frames, ${queued} outbox rows`,
);
process.exit(0);
