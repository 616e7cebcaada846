/**
 * A venue with more variables than the value path keeps rows for (modules/variables/state.ts
 * ROWS_KEPT): memory and the time of value writes when most writes miss the row cache.
 *
 *   npm run build && bun bench/many-variables.ts      (PMSD=dist/pmsd VARIABLES=12500 ROUNDS=4 IDLE_SECONDS=45)
 *
 * Starts PMSD on free ports with a fresh data directory, makes VARIABLES variables of one subsystem
 * (created by their first value, `PUT /subsystems/{id}/variables/{ref}/lastValue`, with an
 * integration token in `isaac-token`, 50 at a time), restarts it so nothing is cached, and prints:
 *   idle before   RSS IDLE_SECONDS after the restart
 *   round N       ROUNDS passes of `POST /variables/{id}/value` over every variable in turn, 50 at a
 *                 time: with more variables than rows kept, every write of a pass reads its row again
 *   idle after    RSS IDLE_SECONDS after the last pass (after the quiet trim)
 * and checks the last value of the first, a middle and the last variable. Fails on any non-2xx answer.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { adminSession, daemonEnv, freePort, integrationToken, rssMb, rssSplitMb, waitFor } from './support';

const ROOT = resolve(import.meta.dir, '..');
const PMSD = resolve(ROOT, process.env.PMSD ?? 'dist/pmsd');
const VARIABLES = Number(process.env.VARIABLES ?? 12_500);
const ROUNDS = Number(process.env.ROUNDS ?? 4);
const IDLE_SECONDS = Number(process.env.IDLE_SECONDS ?? 45);
const AT_ONCE = 50;
if (!existsSync(PMSD)) throw new Error(`${PMSD} does not exist: run npm run build first`);

const command = PMSD.endsWith('.ts') ? [process.execPath, PMSD, 'serve'] : [PMSD, 'serve'];
const dataDir = mkdtempSync(join(tmpdir(), 'bench-pmsd-many-'));
const port = freePort();
const base = `http://127.0.0.1:${port}`;
const env = daemonEnv(port, dataDir);
const start = () => Bun.spawn(command, { env, stdout: 'ignore', stderr: 'ignore' });
const mb = (pid: number) => {
  const { anon, file } = rssSplitMb(pid);
  return `${rssMb(pid).toFixed(1)} MB (anonymous ${anon.toFixed(1)}, file-backed ${file.toFixed(1)})`;
};

/** Sends `count` requests made by `request(i)`, AT_ONCE at a time; throws on a non-2xx answer. */
async function inTurn(count: number, request: (i: number) => Promise<Response>): Promise<Response[]> {
  const answers: Response[] = [];
  for (let i = 0; i < count; i += AT_ONCE) {
    const batch = await Promise.all(Array.from({ length: Math.min(AT_ONCE, count - i) }, (_, k) => request(i + k)));
    for (const res of batch) if (!res.ok) throw new Error(`${res.status} ${await res.text()}`);
    answers.push(...batch);
  }
  return answers;
}

let daemon = start();
try {
  await waitFor(`${base}/api/v1/health`);
  const session = await adminSession(base);
  const headers = { 'content-type': 'application/json', authorization: `Bearer ${session}` };
  const made = await fetch(`${base}/api/v1/subsystems`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ externalId: 'many' }),
  });
  if (!made.ok) throw new Error(`subsystem: ${made.status}`);
  const token = await integrationToken(base, session, 'many variables');
  const asDriver = { 'content-type': 'application/json', 'isaac-token': token };
  const created = await inTurn(VARIABLES, (i) =>
    fetch(`${base}/api/v1/subsystems/many/variables/v${i}/lastValue`, {
      method: 'PUT',
      headers: asDriver,
      body: '{"value":"0"}',
    }),
  );
  const ids = await Promise.all(created.map(async (res) => ((await res.json()) as { _id: number })._id));
  console.log(`${PMSD} on ${port}: ${VARIABLES} variables made`);

  daemon.kill('SIGTERM');
  await daemon.exited;
  daemon = start();
  await waitFor(`${base}/api/v1/health`);
  await Bun.sleep(IDLE_SECONDS * 1000);
  console.log(`idle before  ${mb(daemon.pid)}`);

  for (let round = 1; round <= ROUNDS; round++) {
    const started = performance.now();
    await inTurn(VARIABLES, (i) =>
      fetch(`${base}/api/v1/variables/${ids[i]}/value`, {
        method: 'POST',
        headers: asDriver,
        body: JSON.stringify({ value: `r${round}` }),
      }),
    );
    const ms = performance.now() - started;
    console.log(`round ${round}      ${ms.toFixed(0)} ms, ${((ms * 1000) / VARIABLES).toFixed(1)} µs a write`);
  }
  await Bun.sleep(IDLE_SECONDS * 1000);
  console.log(`idle after   ${mb(daemon.pid)}`);

  for (const id of [ids[0], ids[Math.floor(VARIABLES / 2)], ids[VARIABLES - 1]]) {
    const read = (await (await fetch(`${base}/api/v1/variables/${id}`, { headers })).json()) as { lastValue: string };
    if (read.lastValue !== `r${ROUNDS}`) throw new Error(`variable ${id} reads ${read.lastValue}, not r${ROUNDS}`);
  }
  console.log(`last values  r${ROUNDS} as written`);
} finally {
  daemon.kill('SIGTERM');
  await daemon.exited;
  rmSync(dataDir, { recursive: true, force: true });
}
