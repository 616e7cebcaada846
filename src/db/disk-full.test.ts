/**
 * A full disk (C: Errors, 507 insufficient_storage): SQLite answers SQLITE_FULL once the database
 * may not grow, which `PRAGMA max_page_count` makes deterministic on the test database — the same
 * answer a full filesystem gives (tests/e2e/disk-full.test.ts does that with a tmpfs). Writes are
 * refused with the one error body and leave nothing behind, reads keep working, and writes succeed
 * again as soon as there is room, without a restart.
 */
import type { Database } from 'bun:sqlite';
import { describe, expect, it, spyOn } from 'bun:test';
import { makeTestApp, rowCount, type TestApp } from '../../tests/helpers/app';
import { errorBody } from '../../tests/helpers/errors';
import { makeUser, signIn } from '../../tests/helpers/factories';
import { putSettingGroup } from '../core/settings';
import { createLogger } from '../log';
import { purgeVariableHistory, settleVariableHistory } from '../modules/variables/history';
import { SETTLE_BACKOFF_MS, variableJobs } from '../modules/variables/jobs';

const DISK_FULL = 'the disk is full; nothing was changed';

/**
 * Lets the database grow by no more than two pages and fills them: a write that needs a new page
 * now fails with SQLITE_FULL. Returns the function that gives the room back.
 */
function fillDisk(sqlite: Database): () => void {
  const pages = sqlite.query<{ page_count: number }, []>('PRAGMA page_count').get()?.page_count ?? 0;
  sqlite.run('CREATE TABLE IF NOT EXISTS zz_filler (b BLOB)');
  sqlite.run(`PRAGMA max_page_count = ${pages + 2}`);
  let full = 0;
  for (const size of [3000, 1000, 300, 100, 30]) {
    try {
      for (let i = 0; i < 1000; i++) sqlite.run('INSERT INTO zz_filler VALUES (randomblob(?))', [size]);
    } catch (err) {
      if ((err as { code?: string }).code === 'SQLITE_FULL') full += 1;
      else throw err;
    }
  }
  if (full === 0) throw new Error('the database did not fill up');
  return () => sqlite.run('PRAGMA max_page_count = 1073741823');
}

function integrity(t: TestApp): string {
  return t.deps.sqlite.query<{ integrity_check: string }, []>('PRAGMA integrity_check').get()?.integrity_check ?? '';
}

async function setup(t: TestApp, webhook: boolean) {
  const token = t.tokenFor('admin');
  const { password } = await makeUser(t, 'operator');
  const session = await signIn(t, 'operator', password);
  await t.call('POST', '/subsystems', { token, body: { externalId: 'disk' } });
  const variable = await t.call('POST', '/variables', {
    token,
    body: { subsystemExternalId: 'disk', externalRef: 'v' },
  });
  if (webhook) {
    // Loopback is never reached here: the deliveries only have to be queued in the write's transaction.
    const body = { displayName: 'w', url: 'http://127.0.0.1:9/hook', allowPrivateNetwork: true, events: ['*'] };
    expect((await t.call('POST', '/webhook', { token, body })).status).toBe(201);
  }
  return { token, session, id: variable.body._id as number };
}

/** Sends writes made by `body(n)` until one is refused (at most 2000); returns it and how many went through. */
async function writeUntilRefused(
  t: TestApp,
  token: string,
  method: string,
  path: string,
  body: (n: number) => unknown,
) {
  for (let n = 0; n < 2000; n++) {
    const res = await t.call(method, path, { token, body: body(n) });
    if (res.status !== 200 && res.status !== 201) return { res, n };
  }
  throw new Error('the disk never filled');
}

describe('a full disk', () => {
  for (const webhook of [false, true]) {
    it(`refuses a value write with 507, keeps nothing of it and recovers without restart (${webhook ? 'with' : 'no'} webhook outbox)`, async () => {
      const t = makeTestApp();
      const { token, session, id } = await setup(t, webhook);
      const roomBack = fillDisk(t.deps.sqlite);

      const value = (n: number) => `value ${n} ${'x'.repeat(200)}`;
      const { res, n } = await writeUntilRefused(t, token, 'POST', `/variables/${id}/value`, (i) => ({
        value: value(i),
      }));
      expect(res.status).toBe(507);
      expect(res.body).toEqual(errorBody(res, 507, 'insufficient_storage', DISK_FULL));

      // Reads keep working, with a token and with a session, and the refused value is nowhere.
      const read = await t.call('GET', `/variables/${id}`, { token: session });
      expect(read.status).toBe(200);
      expect(read.body.lastValue).toBe(n > 0 ? value(n - 1) : '');
      const history = await t.call('GET', `/variables/${id}/history`, { token });
      expect(history.status).toBe(200);
      expect(history.body.map((h: { value: string }) => h.value)).not.toContain(value(n));
      expect(history.body).toHaveLength(n);
      expect((await t.call('GET', '/variables', { token: session })).status).toBe(200);
      expect(integrity(t)).toBe('ok');

      roomBack();
      const again = await t.call('POST', `/variables/${id}/value`, { token, body: { value: 'after' } });
      expect(again.status).toBe(200);
      expect((await t.call('GET', `/variables/${id}`, { token })).body.lastValue).toBe('after');
    });
  }

  it('answers every write of a batch a full disk rolled back with 507, and keeps every one it answered 200', async () => {
    const t = makeTestApp();
    const { token } = await setup(t, false);
    const ids: number[] = [];
    for (let i = 0; i < 8; i++) {
      const body = { subsystemExternalId: 'disk', externalRef: `b${i}` };
      ids.push((await t.call('POST', '/variables', { token, body })).body._id);
    }
    fillDisk(t.deps.sqlite);
    const statuses = new Set<number>();
    const refused: Array<[number, string]> = [];
    const accepted: Array<[number, string]> = [];
    // Writes sent together share one writer batch; the round that first needs a page fails as a whole.
    for (let round = 0; round < 200 && refused.length === 0; round++) {
      const sent = ids.map((id) => [id, `r${round} ${'y'.repeat(300)}`] as [number, string]);
      const answers = await Promise.all(
        sent.map(([id, value]) => t.call('POST', `/variables/${id}/value`, { token, body: { value } })),
      );
      answers.forEach((res, i) => {
        const write = sent[i];
        if (!write) return;
        statuses.add(res.status);
        if (res.status === 507) expect(res.body).toEqual(errorBody(res, 507, 'insufficient_storage', DISK_FULL));
        (res.status === 200 ? accepted : refused).push(write);
      });
    }
    expect([...statuses].sort()).toEqual([200, 507]);
    const stored = new Set(
      t.deps.sqlite
        .query<{ variable_id: number; value: string }, []>(
          'SELECT variable_id, value FROM variable_history UNION ALL SELECT variable_id, value FROM variable_history_recent',
        )
        .all()
        .map((r) => `${r.variable_id}:${r.value}`),
    );
    for (const [id, value] of accepted) expect(stored.has(`${id}:${value}`)).toBe(true);
    for (const [id, value] of refused) expect(stored.has(`${id}:${value}`)).toBe(false);
    expect(integrity(t)).toBe('ok');
  });

  it('refuses configuration writes with 507 and leaves no trace of them', async () => {
    const t = makeTestApp();
    const { token } = await setup(t, true);
    const roomBack = fillDisk(t.deps.sqlite);
    const event = (n: number) => ({ subsystemExternalId: 'disk', externalRef: `e${n}`, command: 'c'.repeat(500) });
    const { res, n } = await writeUntilRefused(t, token, 'POST', '/events', event);
    expect(res.status).toBe(507);
    expect(res.body).toEqual(errorBody(res, 507, 'insufficient_storage', DISK_FULL));
    const listed = await t.call('GET', '/events', { token, query: { subsystemExternalId: 'disk' } });
    expect(listed.status).toBe(200);
    expect(listed.body.map((e: { externalRef: string }) => e.externalRef)).not.toContain(`e${n}`);
    expect(listed.body).toHaveLength(n);

    const calendar = await writeUntilRefused(t, token, 'POST', '/schedule/calendars', (i) => ({
      displayName: `c${i}`,
      description: 'd'.repeat(1000),
    }));
    expect(calendar.res.status).toBe(507);
    expect(calendar.res.body).toEqual(errorBody(calendar.res, 507, 'insufficient_storage', DISK_FULL));
    expect(integrity(t)).toBe('ok');

    roomBack();
    expect((await t.call('POST', '/events', { token, body: event(n) })).status).toBe(201);
  });

  it('a heartbeat on a full disk answers 200: the address and the online transition wait for room', async () => {
    const t = makeTestApp();
    const token = t.tokenFor('admin');
    // Rows of many lengths: for some, storing the address needs a page the full disk cannot give.
    const sizes = Array.from({ length: 40 }, (_, i) => 3900 + i * 5);
    for (const size of sizes) {
      const body = { externalId: `disk${size}`, metadata: { note: 'n'.repeat(size) } };
      expect((await t.call('POST', '/subsystems', { token, body })).status).toBe(201);
    }
    const roomBack = fillDisk(t.deps.sqlite);
    let unstored = 0;
    for (const size of sizes) {
      const beat = await t.call('PUT', `/subsystems/disk${size}/heartbeat`, { token, from: '10.1.2.3' });
      expect(beat.status).toBe(200);
      expect(beat.body.messages).toEqual([]);
      const read = await t.call('GET', `/subsystems/disk${size}`, { token });
      if (read.body.metadata.ip_address === undefined) unstored += 1;
    }
    expect(unstored).toBeGreaterThan(0);
    expect(integrity(t)).toBe('ok');
    roomBack();
    for (const size of sizes) {
      expect((await t.call('PUT', `/subsystems/disk${size}/heartbeat`, { token, from: '10.1.2.3' })).status).toBe(200);
      const read = await t.call('GET', `/subsystems/disk${size}`, { token });
      expect([read.body.status, read.body.metadata.ip_address]).toEqual(['online', '10.1.2.3']);
    }
  });

  it('moving history points to the indexed table waits for room: the job skips, the points stay readable', async () => {
    const t = makeTestApp();
    const { token, id } = await setup(t, false);
    const written: string[] = [];
    for (let i = 0; i < 40; i++) {
      const value = `p${i} ${'z'.repeat(400)}`;
      expect((await t.call('POST', `/variables/${id}/value`, { token, body: { value } })).status).toBe(200);
      written.push(value);
    }
    const settle = variableJobs(t.deps).jobs.find((j) => j.name === 'variables.history-settle');
    if (!settle) throw new Error('no variables.history-settle job');
    const points = async () =>
      (await t.call('GET', `/variables/${id}/history`, { token, query: { order: 'asc' } })).body.map(
        (p: { value: string }) => p.value,
      );
    const recent = () => rowCount(t, 'variable_history_recent', `variable_id = ${id}`);
    const roomBack = fillDisk(t.deps.sqlite);
    await settle.run();
    expect(recent()).toBe(40);
    expect(await points()).toEqual(written);
    expect(integrity(t)).toBe('ok');
    roomBack();
    // A refused move backs off: the next ones queue nothing until SETTLE_BACKOFF_MS has passed.
    const submit = spyOn(t.deps.work, 'submit');
    t.clock.advance(SETTLE_BACKOFF_MS - 1000);
    await settle.run();
    expect(submit).not.toHaveBeenCalled();
    submit.mockRestore();
    expect(recent()).toBe(40);
    t.clock.advance(1000);
    await settle.run();
    expect(recent()).toBe(0);
    expect(await points()).toEqual(written);
  });

  it('retention still deletes on a full disk, where the recent points cannot move: the deletes make room', async () => {
    const t = makeTestApp();
    const { token, id } = await setup(t, false);
    putSettingGroup(t.deps, 'variables', { historyRetentionDays: 1 });
    const write = async (value: string) =>
      expect((await t.call('POST', `/variables/${id}/value`, { token, body: { value } })).status).toBe(200);
    for (let i = 0; i < 30; i++) await write(`old ${i} ${'o'.repeat(400)}`);
    await settleVariableHistory(t.deps);
    t.clock.advance(2 * 86400_000);
    for (let i = 0; i < 20; i++) await write(`new ${i} ${'n'.repeat(400)}`);
    fillDisk(t.deps.sqlite);
    expect(await purgeVariableHistory(t.deps)).toBe(30);
    expect(rowCount(t, 'variable_history', `variable_id = ${id}`)).toBe(0);
    expect(rowCount(t, 'variable_history_recent', `variable_id = ${id}`)).toBe(20);
    expect(integrity(t)).toBe('ok');
  });

  it('logs one warning a minute while writes are refused, not a stack per write', async () => {
    const lines: Record<string, unknown>[] = [];
    const log = createLogger('info', { write: (line: string) => void lines.push(JSON.parse(line)) });
    const t = makeTestApp({ log });
    const { token } = await setup(t, false);
    fillDisk(t.deps.sqlite);
    const event = (n: number) => ({ subsystemExternalId: 'disk', externalRef: `w${n}`, command: 'c'.repeat(500) });
    const { n } = await writeUntilRefused(t, token, 'POST', '/events', event);
    for (let i = 1; i <= 5; i++)
      expect((await t.call('POST', '/events', { token, body: event(n + i) })).status).toBe(507);
    const warned = () => lines.filter((l) => String(l.msg).startsWith('the disk is full'));
    expect(warned()).toHaveLength(1);
    expect(warned()[0]?.level).toBe(40);
    expect(lines.filter((l) => l.level === 50)).toEqual([]);
    t.clock.advance(60_000);
    expect((await t.call('POST', '/events', { token, body: event(n + 9) })).status).toBe(507);
    expect(warned()).toHaveLength(2);
  });
});
