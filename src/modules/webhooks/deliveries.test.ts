import { describe, expect, it } from 'bun:test';
import { addSubsystem, recordEvents, rowCount, type TestApp } from '../../../tests/helpers/app';
import { errorBody } from '../../../tests/helpers/errors';
import { insertDelivery } from '../../realtime/outbox';
import { inFlightCount, runDueDeliveries, startDispatcher, stopDispatcher } from './dispatch';
import { MAX_DELIVERIES_PER_WEBHOOK, pruneDeliveries, RETENTION_MS } from './jobs';
import { addWebhook, deliveryRows, holdAnswers, receiverPool, T0, webhookApp } from './test-support';

const serve = receiverPool();

async function rename(t: TestApp, name: string) {
  await t.call('PATCH', '/subsystems/media', { as: 'admin', body: { displayName: name } });
}

describe('delivery log', () => {
  it('lists newest first with status, eventType and from filters and the list conventions', async () => {
    const t = webhookApp();
    const r = serve();
    await addSubsystem(t, 'media');
    const hook = await addWebhook(t, {
      url: r.url,
      allowPrivateNetwork: true,
      events: ['subsystem.updated', 'webhook.updated'],
    });
    await rename(t, 'a');
    await runDueDeliveries(t.deps);
    t.clock.advance(60_000);
    r.respond = () => new Response('no', { status: 500 });
    await t.call('PATCH', `/webhook/${hook._id}`, { as: 'admin', body: { timeoutSeconds: 3 } });
    await rename(t, 'b');
    const all = await t.call('GET', `/webhook/${hook._id}/deliveries`, { as: 'viewer' });
    expect(all.headers.get('x-total-count')).toBe('3');
    expect(all.body.map((d: { eventType: string; status: string }) => [d.eventType, d.status])).toEqual([
      ['subsystem.updated', 'pending'],
      ['webhook.updated', 'pending'],
      ['subsystem.updated', 'succeeded'],
    ]);
    const byStatus = await t.call('GET', `/webhook/${hook._id}/deliveries`, {
      as: 'admin',
      query: { status: 'pending' },
    });
    expect(byStatus.body).toHaveLength(2);
    const byType = await t.call('GET', `/webhook/${hook._id}/deliveries`, {
      as: 'admin',
      query: { eventType: 'webhook.updated' },
    });
    expect(byType.body.map((d: { eventType: string }) => d.eventType)).toEqual(['webhook.updated']);
    const from = await t.call('GET', `/webhook/${hook._id}/deliveries`, {
      as: 'admin',
      query: { from: new Date(Date.parse(T0) + 1000).toISOString() },
    });
    expect(from.body).toHaveLength(2);
    const page = await t.call('GET', `/webhook/${hook._id}/deliveries`, {
      as: 'admin',
      query: { limit: 1, offset: 1 },
    });
    expect(page.body.map((d: { eventType: string }) => d.eventType)).toEqual(['webhook.updated']);
    expect(page.headers.get('x-total-count')).toBe('3');
    expect(page.headers.get('link')).toContain('offset=2');
    const bad = await t.call('GET', `/webhook/${hook._id}/deliveries`, { as: 'admin', query: { status: 'lost' } });
    expect(bad.status).toBe(400);
    expect(bad.body.detail).toEqual([
      { path: '/status', message: 'must be one of: pending, retrying, succeeded, dead' },
    ]);
    const badFrom = await t.call('GET', `/webhook/${hook._id}/deliveries`, {
      as: 'admin',
      query: { from: 'yesterday' },
    });
    expect(badFrom.body.detail).toEqual([{ path: '/from', message: 'must be an ISO-8601 time' }]);
  });

  it('redelivers a dead delivery under the same webhook-id, keeping its attempts', async () => {
    const t = webhookApp();
    const r = serve();
    r.respond = () => new Response('down', { status: 500 });
    await addSubsystem(t, 'media');
    const hook = await addWebhook(t, { url: r.url, allowPrivateNetwork: true, events: ['subsystem.updated'] });
    const other = await addWebhook(t, { url: r.url, allowPrivateNetwork: true, events: ['webhook.test'] });
    await rename(t, 'a');
    t.deps.sqlite.run("UPDATE webhook_deliveries SET status = 'dead', next_attempt_at = NULL, round_attempts = 8");
    const [dead] = deliveryRows(t, hook._id);
    const id = dead?.id ?? 0;
    r.respond = () => new Response('ok');
    const res = await t.call('POST', `/webhook/${hook._id}/deliveries/${id}/redeliver`, { as: 'admin' });
    expect(res.status).toBe(202);
    expect(res.body).toMatchObject({ _id: id, status: 'pending', nextAttemptAt: T0, attempts: [] });
    await runDueDeliveries(t.deps);
    const list = await t.call('GET', `/webhook/${hook._id}/deliveries`, { as: 'admin' });
    expect(list.body[0]).toMatchObject({ _id: id, status: 'succeeded' });
    expect(r.received.map((x) => x.headers['webhook-id'])).toEqual([res.body.eventId]);
    const wrong = await t.call('POST', `/webhook/${other._id}/deliveries/${id}/redeliver`, { as: 'admin' });
    expect(wrong.body).toEqual(errorBody(wrong, 404, 'not_found', `delivery ${id} not found`));
    const unknown = await t.call('POST', `/webhook/${hook._id}/deliveries/x/redeliver`, { as: 'admin' });
    expect(unknown.body).toEqual(errorBody(unknown, 404, 'not_found', 'delivery x not found'));
  });

  it('test sends webhook.test to that webhook only, waits, and a failed test is dead without touching its health', async () => {
    const t = webhookApp();
    const r = serve();
    const hook = await addWebhook(t, { url: r.url, allowPrivateNetwork: true, events: ['subsystem.updated'] });
    const everything = await addWebhook(t, { url: r.url, allowPrivateNetwork: true, events: ['*'] });
    const bus = recordEvents(t, (e) => e.type === 'webhook.test');
    const before = rowCount(t, 'webhook_deliveries', 'webhook_id = ?', String(everything._id));
    const res = await t.call('POST', `/webhook/${hook._id}/test`, { as: 'admin' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      webhookId: hook._id,
      eventType: 'webhook.test',
      status: 'succeeded',
      attempts: [{ at: T0, responseStatus: 200, durationMs: 0, error: null }],
      responseBodyExcerpt: 'ok',
    });
    expect(JSON.parse(r.received[0]?.body ?? '')).toEqual({
      type: 'webhook.test',
      timestamp: T0,
      data: { _id: hook._id, displayName: 'Receiver' },
    });
    expect(bus).toEqual([]);
    expect(
      rowCount(t, 'webhook_deliveries', "webhook_id = ? AND event_type = 'webhook.test'", String(everything._id)),
    ).toBe(0);
    expect(rowCount(t, 'webhook_deliveries', 'webhook_id = ?', String(everything._id))).toBeGreaterThanOrEqual(before);
    r.respond = () => new Response('boom', { status: 500 });
    const failed = await t.call('POST', `/webhook/${hook._id}/test`, { as: 'admin' });
    expect(failed.body).toMatchObject({
      status: 'dead',
      nextAttemptAt: null,
      attempts: [{ responseStatus: 500, error: 'http_status' }],
    });
    const read = await t.call('GET', `/webhook/${hook._id}`, { as: 'admin' });
    expect(read.body).toMatchObject({ state: 'active', consecutiveFailures: 0, lastDeliveryAt: null });
  });
});

describe('delivery durability and retention', () => {
  it('deliveries queued or in flight when the process died go out after a restart with the same webhook-id', async () => {
    const first = webhookApp();
    const r = serve();
    const release = holdAnswers(r, 'late');
    await addSubsystem(first, 'media');
    const hook = await addWebhook(first, { url: r.url, allowPrivateNetwork: true, events: ['subsystem.updated'] });
    await rename(first, 'a');
    await rename(first, 'b');
    const ids = deliveryRows(first, hook._id).map((d) => d.id);
    // One attempt is running when the "process dies": its result is never recorded.
    startDispatcher(first.deps);
    void runDueDeliveries(first.deps);
    expect(inFlightCount(first.deps)).toBe(2);
    await stopDispatcher(first.deps, 0);
    const eventIds = first.deps.sqlite
      .query<{ event_id: string }, []>('SELECT event_id FROM webhook_deliveries ORDER BY id')
      .all();
    const second = webhookApp({ dataDir: first.deps.config.dataDir });
    r.respond = () => new Response('ok');
    await runDueDeliveries(second.deps);
    expect(deliveryRows(second, hook._id).map((d) => [d.id, d.status])).toEqual(ids.map((id) => [id, 'succeeded']));
    const resent = r.received.slice(2).map((x) => x.headers['webhook-id']);
    expect(resent.sort()).toEqual(eventIds.map((e) => e.event_id).sort());
    release();
  });

  it("a value write's delivery is listed at once and, still in the outbox when the process died, goes out after a restart", async () => {
    const first = webhookApp();
    const r = serve();
    const media = await addSubsystem(first, 'media');
    const v = await first.call('PUT', '/variables', {
      as: 'admin',
      body: { subsystemId: media._id, externalRef: 'x' },
    });
    const hook = await addWebhook(first, { url: r.url, allowPrivateNetwork: true, events: ['variable.changed'] });
    await first.call('POST', `/variables/${v.body._id}/value`, { from: '127.0.0.1', body: { value: '1' } });
    const listed = await first.call('GET', `/webhook/${hook._id}/deliveries`, { as: 'admin' });
    expect(listed.body.map((d: { eventType: string; status: string }) => [d.eventType, d.status])).toEqual([
      ['variable.changed', 'pending'],
    ]);
    await first.call('POST', `/variables/${v.body._id}/value`, { from: '127.0.0.1', body: { value: '2' } });
    expect(rowCount(first, 'webhook_outbox')).toBe(1);

    const second = webhookApp({ dataDir: first.deps.config.dataDir });
    await runDueDeliveries(second.deps);
    expect(rowCount(second, 'webhook_outbox')).toBe(0);
    expect(r.received.map((x) => JSON.parse(x.body).data.lastValue)).toEqual(['1', '2']);
    expect(deliveryRows(second, hook._id).map((d) => d.status)).toEqual(['succeeded', 'succeeded']);
  });

  it('a stopped dispatcher starts nothing', async () => {
    const t = webhookApp();
    const r = serve();
    await addSubsystem(t, 'media');
    await addWebhook(t, { url: r.url, allowPrivateNetwork: true, events: ['subsystem.updated'] });
    await rename(t, 'a');
    await stopDispatcher(t.deps, 0);
    await runDueDeliveries(t.deps);
    expect(r.received).toEqual([]);
  });

  it('keeps 14 days and at most 10000 finished deliveries per webhook', () => {
    const t = webhookApp();
    const insert = (id: number, n: number, at: number) =>
      t.deps.sqlite.transaction(() => {
        for (let i = 0; i < n; i++) insertDelivery(t.deps, id, 'subsystem.updated', '{}', at);
      })();
    const now = Date.parse(T0);
    const a = t.deps.sqlite.run(
      "INSERT INTO webhooks (display_name, url, events, subsystem_ids, secret, headers, created_at, updated_at) VALUES ('a', 'https://x/', '[]', '[]', 's', '{}', 0, 0)",
    );
    const b = t.deps.sqlite.run(
      "INSERT INTO webhooks (display_name, url, events, subsystem_ids, secret, headers, created_at, updated_at) VALUES ('b', 'https://x/', '[]', '[]', 's', '{}', 0, 0)",
    );
    const hookA = Number(a.lastInsertRowid);
    const hookB = Number(b.lastInsertRowid);
    insert(hookA, 3, now - RETENTION_MS - 1);
    insert(hookA, 2, now - RETENTION_MS + 1);
    // Finished deliveries age out; one an active webhook still retries never does (clock-steps.test.ts).
    t.deps.sqlite.run(
      "UPDATE webhook_deliveries SET status = 'succeeded', next_attempt_at = NULL WHERE webhook_id = ?",
      [hookA],
    );
    insert(hookB, MAX_DELIVERIES_PER_WEBHOOK + 5, now);
    t.deps.sqlite.run(
      "UPDATE webhook_deliveries SET status = 'succeeded', next_attempt_at = NULL WHERE webhook_id = ?",
      [hookB],
    );
    const newestB = deliveryRows(t, hookB).slice(-MAX_DELIVERIES_PER_WEBHOOK)[0]?.id;
    expect(pruneDeliveries(t.deps)).toBe(8);
    expect(deliveryRows(t, hookA)).toHaveLength(2);
    const keptB = deliveryRows(t, hookB);
    expect(keptB).toHaveLength(MAX_DELIVERIES_PER_WEBHOOK);
    expect(keptB[0]?.id).toBe(newestB ?? -1);
  });
});

it('answers a bad limit with bad_request like every list', async () => {
  const t = webhookApp();
  const res = await t.call('GET', '/webhook/1/deliveries', { as: 'admin', query: { limit: 0 } });
  expect(res.body).toEqual(
    errorBody(res, 400, 'bad_request', 'limit must be an integer from 1 to 10000', [
      { path: '/limit', message: 'must be an integer from 1 to 10000' },
    ]),
  );
});
