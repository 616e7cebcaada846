/**
 * The delivery log's cap against the queue (§10 rules 3 and 7, "never lost: queued deliveries";
 * jobs.ts `pruneDeliveries` says what was decided): the 10000 per webhook count and prune finished
 * deliveries only; the deliveries an active webhook still has to send are bounded by 100000, past
 * which the oldest are dropped and the log says so.
 */
import { describe, expect, it } from 'bun:test';
import { addSubsystem, type TestApp } from '../../../tests/helpers/app';
import { insertDelivery } from '../../realtime/outbox';
import { runDueDeliveries } from './dispatch';
import { boundQueues, MAX_DELIVERIES_PER_WEBHOOK, MAX_QUEUED_PER_WEBHOOK, pruneDeliveries } from './jobs';
import { addWebhook, receiverPool, webhookApp } from './test-support';

const serve = receiverPool();

/** A webhook on `subsystem.updated` whose receiver is down, with one real delivery retrying. */
async function downReceiver(t: TestApp, name = 'Stage') {
  const r = serve();
  r.respond = () => new Response('down', { status: 503 });
  const hook = await addWebhook(t, { url: r.url, allowPrivateNetwork: true, events: ['subsystem.updated'] });
  await t.call('PATCH', '/subsystems/media', { as: 'admin', body: { displayName: name } });
  await runDueDeliveries(t.deps);
  return hook;
}

/** `n` more deliveries of the webhook, as a flood of events would queue them (status as given). */
function flood(t: TestApp, webhookId: number, n: number, status: 'pending' | 'retrying' | 'succeeded') {
  const first = Number(
    t.deps.sqlite.query<{ m: number }, []>('SELECT coalesce(max(id), 0) AS m FROM webhook_deliveries').get()?.m,
  );
  t.deps.sqlite.transaction(() => {
    for (let i = 0; i < n; i++) insertDelivery(t.deps, webhookId, 'subsystem.updated', '{}', t.clock.now());
  })();
  if (status === 'retrying')
    t.deps.sqlite.run("UPDATE webhook_deliveries SET status = 'retrying' WHERE webhook_id = ? AND id > ?", [
      webhookId,
      first,
    ]);
  if (status === 'succeeded')
    t.deps.sqlite.run(
      "UPDATE webhook_deliveries SET status = 'succeeded', next_attempt_at = NULL WHERE webhook_id = ? AND id > ?",
      [webhookId, first],
    );
}

/** How many deliveries of this status the API lists (`X-Total-Count`). */
async function listed(t: TestApp, webhookId: number, status: string): Promise<number> {
  const res = await t.call('GET', `/webhook/${webhookId}/deliveries`, { as: 'admin', query: { status, limit: 1 } });
  expect(res.status).toBe(200);
  return Number(res.headers.get('x-total-count'));
}

describe('the 10000-deliveries cap of the log', () => {
  it('never drops a delivery an active webhook is still retrying; it prunes finished ones', async () => {
    const t = webhookApp();
    await addSubsystem(t, 'media');
    const hook = await downReceiver(t);
    flood(t, hook._id, MAX_DELIVERIES_PER_WEBHOOK + 5, 'retrying');
    flood(t, hook._id, MAX_DELIVERIES_PER_WEBHOOK + 3, 'succeeded');
    expect(pruneDeliveries(t.deps)).toBe(3);
    expect(await listed(t, hook._id, 'retrying')).toBe(MAX_DELIVERIES_PER_WEBHOOK + 6);
    expect(await listed(t, hook._id, 'succeeded')).toBe(MAX_DELIVERIES_PER_WEBHOOK);
    // The first event, retrying since before the flood, is still there and is sent when the receiver is back.
    const oldest = await t.call('GET', `/webhook/${hook._id}/deliveries`, {
      as: 'admin',
      query: { status: 'retrying', offset: MAX_DELIVERIES_PER_WEBHOOK + 5 },
    });
    expect(oldest.body).toMatchObject([{ eventType: 'subsystem.updated', attempts: [{ responseStatus: 503 }] }]);
  });
});

describe('the queue bound (a receiver down for days under a flood of events)', () => {
  it('past 100000 waiting, the oldest are dropped, the newest kept, and a system warning says so', async () => {
    const t = webhookApp();
    await addSubsystem(t, 'media');
    const hook = await downReceiver(t);
    const quiet = await downReceiver(t, 'Stage left');
    flood(t, hook._id, MAX_QUEUED_PER_WEBHOOK + 8, 'pending'); // and its two real ones, retrying
    flood(t, quiet._id, 10, 'pending');
    expect(boundQueues(t.deps)).toBe(10);
    expect(await listed(t, hook._id, 'pending')).toBe(MAX_QUEUED_PER_WEBHOOK);
    // The oldest (the retrying one from before the flood) went first.
    expect(await listed(t, hook._id, 'retrying')).toBe(0);
    expect(await listed(t, quiet._id, 'pending')).toBe(10);
    expect(await listed(t, quiet._id, 'retrying')).toBe(1);
    const logs = await t.call('GET', '/logs', { as: 'admin', query: { key: 'webhook.queue_full' } });
    expect(logs.body.logs).toHaveLength(1);
    expect(logs.body.logs[0]).toMatchObject({ category: 'system', severity: 'warning' });
    expect(logs.body.logs[0].value).toStartWith(
      `webhook ${hook._id} (Receiver): 10 undelivered deliveries dropped, the oldest first: more than 100000 were waiting`,
    );
    // Within the bound nothing more is dropped, and nothing more is said.
    expect(boundQueues(t.deps)).toBe(0);
    expect(pruneDeliveries(t.deps)).toBe(0);
    expect(
      (await t.call('GET', '/logs', { as: 'admin', query: { key: 'webhook.queue_full' } })).body.logs,
    ).toHaveLength(1);
  });
});
