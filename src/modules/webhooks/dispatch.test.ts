import { describe, expect, it } from 'bun:test';
import { addSubsystem, recordEvents, type TestApp } from '../../../tests/helpers/app';
import { setWebhookIo } from '../../realtime/dispatch-io';
import { versionInfo } from '../../version';
import { runDueDeliveries } from './dispatch';
import { RETRY_DELAYS_MS, retryDelay } from './record';
import { addWebhook, deliveryRows, expectedSignature, receiverPool, T0, webhookApp } from './test-support';

const serve = receiverPool();

async function withVariable(t: TestApp) {
  await addSubsystem(t, 'media');
  const v = await t.call('POST', '/variables', {
    as: 'admin',
    body: { subsystemExternalId: 'media', externalRef: 'temp', displayName: 'Temperature' },
  });
  return (value: string) => t.call('POST', `/variables/${v.body._id}/value`, { from: '127.0.0.1', body: { value } });
}

/** Queues one `settings.changed`-free event for the webhook: a displayName change of a subsystem. */
async function queueOne(t: TestApp, name: string) {
  await t.call('PATCH', '/subsystems/media', { as: 'admin', body: { displayName: name } });
}

describe('webhook delivery', () => {
  it('keeps at most 1 KiB of UTF-8 of the answer: a character cut at the limit is left out, not made U+FFFD', async () => {
    const t = webhookApp();
    const r = serve();
    await withVariable(t);
    const hook = await addWebhook(t, { url: r.url, allowPrivateNetwork: true, events: ['subsystem.updated'] });
    const excerpts: string[] = [];
    for (const [i, answer] of [
      `a${'é'.repeat(600)}`, // the 1 024th byte is the first half of an é
      `${'€'.repeat(341)}€`, // 1 023 bytes, then a cut euro sign
      new Uint8Array(2000).fill(0xff), // not text: U+FFFD, 3 bytes each
    ].entries()) {
      r.respond = () => new Response(answer);
      await queueOne(t, `Media ${i}`);
      await runDueDeliveries(t.deps);
      const list = await t.call('GET', `/webhook/${hook._id}/deliveries`, { as: 'admin' });
      excerpts.push(list.body[0].responseBodyExcerpt);
    }
    expect(excerpts).toEqual([`a${'é'.repeat(511)}`, '€'.repeat(341), '\ufffd'.repeat(341)]);
    for (const excerpt of excerpts) expect(Buffer.byteLength(excerpt)).toBeLessThanOrEqual(1024);
  });

  it('sends a correctly signed variable.changed with the same data as the bus', async () => {
    const t = webhookApp();
    const r = serve();
    const write = await withVariable(t);
    const hook = await addWebhook(t, {
      url: r.url,
      allowPrivateNetwork: true,
      events: ['variable.changed'],
      headers: { 'X-Api-Key': 'k1' },
    });
    const bus = recordEvents(t, (e) => e.type === 'variable.changed');
    expect((await write('21.5')).status).toBe(200);
    await runDueDeliveries(t.deps);
    expect(r.received).toHaveLength(1);
    const [got] = r.received;
    if (!got) throw new Error('nothing received');
    const [row] = deliveryRows(t, hook._id);
    expect(row?.status).toBe('succeeded');
    const list = await t.call('GET', `/webhook/${hook._id}/deliveries`, { as: 'admin' });
    const delivery = list.body[0];
    expect(got.headers['webhook-id']).toBe(delivery.eventId);
    expect(delivery.eventId).toMatch(/^msg_[0-9a-f]{32}$/);
    expect(got.headers['webhook-timestamp']).toBe(String(Date.parse(T0) / 1000));
    expect(got.headers['webhook-signature']).toBe(
      expectedSignature(hook.secret, delivery.eventId, String(Date.parse(T0) / 1000), got.body),
    );
    expect(got.headers['content-type']).toBe('application/json');
    expect(got.headers['user-agent']).toBe(`pms-webhook/${versionInfo.version}`);
    expect(got.headers['x-api-key']).toBe('k1');
    expect(JSON.parse(got.body)).toEqual({ type: 'variable.changed', timestamp: bus[0]?.at, data: bus[0]?.data });
    expect(bus[0]?.data).toMatchObject({ lastValue: '21.5', externalRef: 'temp', subsystemExternalId: 'media' });
    expect(delivery).toMatchObject({
      eventType: 'variable.changed',
      status: 'succeeded',
      attempts: [{ at: T0, responseStatus: 200, durationMs: 0, error: null }],
      responseBodyExcerpt: 'ok',
      nextAttemptAt: null,
      createdAt: T0,
    });
    const read = await t.call('GET', `/webhook/${hook._id}`, { as: 'admin' });
    expect(read.body).toMatchObject({ state: 'active', lastDeliveryAt: T0, lastSuccessAt: T0, consecutiveFailures: 0 });
  });

  it('retries after 5 s, 5 min, 30 min, 2 h, 5 h, 10 h and 10 h under the same webhook-id, then the delivery is dead', async () => {
    const t = webhookApp();
    const r = serve();
    r.respond = () => new Response('nope '.repeat(400), { status: 500 });
    await addSubsystem(t, 'media');
    const hook = await addWebhook(t, { url: r.url, allowPrivateNetwork: true, events: ['subsystem.updated'] });
    await queueOne(t, 'Media');
    let at = Date.parse(T0);
    for (const delay of RETRY_DELAYS_MS) {
      await runDueDeliveries(t.deps);
      const [row] = deliveryRows(t, hook._id);
      expect(row?.status).toBe('retrying');
      expect(row?.next_attempt_at).toBe(at + delay);
      t.clock.advance(delay - 1);
      await runDueDeliveries(t.deps);
      t.clock.advance(1);
      at += delay;
    }
    await runDueDeliveries(t.deps);
    expect(r.received).toHaveLength(8);
    expect(new Set(r.received.map((x) => x.headers['webhook-id'])).size).toBe(1);
    const list = await t.call('GET', `/webhook/${hook._id}/deliveries`, { as: 'admin' });
    expect(list.body[0]).toMatchObject({ status: 'dead', nextAttemptAt: null });
    expect(list.body[0].attempts).toHaveLength(8);
    expect(list.body[0].attempts[7]).toEqual({
      at: new Date(at).toISOString(),
      responseStatus: 500,
      durationMs: 0,
      error: 'http_status',
    });
    expect(Buffer.byteLength(list.body[0].responseBodyExcerpt)).toBe(1024);
    t.clock.advance(RETRY_DELAYS_MS[6] ?? 0);
    await runDueDeliveries(t.deps);
    expect(r.received).toHaveLength(8);
    const read = await t.call('GET', `/webhook/${hook._id}`, { as: 'admin' });
    expect(read.body).toMatchObject({ state: 'failing', consecutiveFailures: 8, lastSuccessAt: null });
  });

  it('jitters each wait by at most 10 %', () => {
    const t = webhookApp();
    setWebhookIo(t.deps, { random: () => 0 });
    expect(retryDelay(t.deps, 1)).toBe(4500);
    expect(retryDelay(t.deps, 7)).toBe(9 * 3_600_000);
    setWebhookIo(t.deps, { random: () => 0.999999 });
    expect(retryDelay(t.deps, 2)).toBe(Math.round(300_000 * (0.9 + 0.2 * 0.999999)));
  });

  it('a 410 disables the webhook at once; its deliveries wait until PATCH {active:true}', async () => {
    const t = webhookApp();
    const r = serve();
    r.respond = () => new Response('gone', { status: 410 });
    await addSubsystem(t, 'media');
    const hook = await addWebhook(t, { url: r.url, allowPrivateNetwork: true, events: ['subsystem.updated'] });
    const events = recordEvents(t, (e) => e.type === 'webhook.disabled');
    await queueOne(t, 'A');
    await runDueDeliveries(t.deps);
    expect(events.map((e) => e.data)).toEqual([{ _id: hook._id, disabledReason: 'gone' }]);
    const read = await t.call('GET', `/webhook/${hook._id}`, { as: 'admin' });
    expect(read.body).toMatchObject({
      active: false,
      state: 'disabled',
      disabledReason: 'gone',
      consecutiveFailures: 1,
    });
    await queueOne(t, 'B');
    expect(deliveryRows(t, hook._id)).toHaveLength(1);
    t.clock.advance(60_000);
    await runDueDeliveries(t.deps);
    expect(r.received).toHaveLength(1);
    r.respond = () => new Response(null, { status: 204 });
    await t.call('PATCH', `/webhook/${hook._id}`, { as: 'admin', body: { active: true } });
    await runDueDeliveries(t.deps);
    expect(r.received).toHaveLength(2);
    expect(deliveryRows(t, hook._id).map((d) => d.status)).toEqual(['succeeded']);
  });

  it('does not follow a redirect and counts it as a failure', async () => {
    const t = webhookApp();
    const r = serve();
    r.respond = () => new Response(null, { status: 302, headers: { location: `${r.url}/elsewhere` } });
    await addSubsystem(t, 'media');
    const hook = await addWebhook(t, { url: r.url, allowPrivateNetwork: true, events: ['subsystem.updated'] });
    await queueOne(t, 'A');
    await runDueDeliveries(t.deps);
    expect(r.received).toHaveLength(1);
    const list = await t.call('GET', `/webhook/${hook._id}/deliveries`, { as: 'admin' });
    expect(list.body[0]).toMatchObject({ status: 'retrying', attempts: [{ responseStatus: 302, error: 'redirect' }] });
  });

  it('gives up an attempt after timeoutSeconds', async () => {
    const t = webhookApp();
    const r = serve();
    r.respond = async () => {
      await Bun.sleep(3000);
      return new Response('late');
    };
    await addSubsystem(t, 'media');
    const hook = await addWebhook(t, {
      url: r.url,
      allowPrivateNetwork: true,
      events: ['subsystem.updated'],
      timeoutSeconds: 1,
    });
    await queueOne(t, 'A');
    const started = performance.now();
    await runDueDeliveries(t.deps);
    expect(performance.now() - started).toBeLessThan(2500);
    const list = await t.call('GET', `/webhook/${hook._id}/deliveries`, { as: 'admin' });
    expect(list.body[0]).toMatchObject({ status: 'retrying', attempts: [{ responseStatus: null, error: 'timeout' }] });
  });

  it('refuses a target that resolves to loopback without allowPrivateNetwork, and link-local always', async () => {
    const t = webhookApp();
    const r = serve();
    await addSubsystem(t, 'media');
    const names: Record<string, string[]> = {};
    setWebhookIo(t.deps, {
      lookup: async (host) => {
        const found = names[host];
        if (!found) throw new Error('ENOTFOUND');
        return found;
      },
    });
    // Unresolvable when written (accepted), resolving to a refused address when sent.
    const loop = await addWebhook(t, { url: `http://receiver.test:${r.port}/hook`, events: ['subsystem.updated'] });
    const meta = await addWebhook(t, {
      url: `http://metadata.test:${r.port}/hook`,
      events: ['subsystem.updated'],
      allowPrivateNetwork: true,
    });
    names['receiver.test'] = ['127.0.0.1'];
    names['metadata.test'] = ['127.0.0.1', '169.254.169.254'];
    await queueOne(t, 'A');
    await runDueDeliveries(t.deps);
    expect(r.received).toHaveLength(0);
    for (const id of [loop._id, meta._id]) {
      const list = await t.call('GET', `/webhook/${id}/deliveries`, { as: 'admin' });
      expect(list.body[0].attempts).toEqual([{ at: T0, responseStatus: null, durationMs: 0, error: 'target_refused' }]);
    }
    delete names['receiver.test'];
    t.clock.advance(10_000);
    await runDueDeliveries(t.deps);
    const list = await t.call('GET', `/webhook/${loop._id}/deliveries`, { as: 'admin' });
    expect(list.body[0].attempts[1].error).toBe('dns_failed');
  });

  it('reaches a plain-http name at the address it checked, with the name in the Host header and its own User-Agent', async () => {
    const t = webhookApp();
    const r = serve();
    await addSubsystem(t, 'media');
    setWebhookIo(t.deps, { lookup: async () => ['127.0.0.1'] });
    const hook = await addWebhook(t, {
      url: `http://receiver.test:${r.port}/hook?x=1`,
      allowPrivateNetwork: true,
      headers: { 'User-Agent': 'custom-agent/2' },
      events: ['subsystem.updated'],
    });
    await queueOne(t, 'A');
    await runDueDeliveries(t.deps);
    expect(r.received.map((x) => x.headers.host)).toEqual([`receiver.test:${r.port}`]);
    expect(r.received[0]?.headers['user-agent']).toBe('custom-agent/2');
    expect(deliveryRows(t, hook._id).map((d) => d.status)).toEqual(['succeeded']);
  });

  it('signs with both secrets for 24 h after a rotation, then with the new one only', async () => {
    const t = webhookApp();
    const r = serve();
    const hook = await addWebhook(t, { url: r.url, allowPrivateNetwork: true, events: ['webhook.test'] });
    const rotated = await t.call('POST', `/webhook/${hook._id}/rotateSecret`, { as: 'admin' });
    const test = await t.call('POST', `/webhook/${hook._id}/test`, { as: 'admin' });
    expect(test.body.status).toBe('succeeded');
    const ts = String(Date.parse(T0) / 1000);
    const first = r.received[0];
    expect(first?.headers['webhook-signature']).toBe(
      [
        expectedSignature(rotated.body.secret, test.body.eventId, ts, first?.body ?? ''),
        expectedSignature(hook.secret, test.body.eventId, ts, first?.body ?? ''),
      ].join(' '),
    );
    t.clock.advance(24 * 3_600_000);
    const later = await t.call('POST', `/webhook/${hook._id}/test`, { as: 'admin' });
    const second = r.received[1];
    const ts2 = String(Date.parse(T0) / 1000 + 24 * 3600);
    expect(second?.headers['webhook-signature']).toBe(
      expectedSignature(rotated.body.secret, later.body.eventId, ts2, second?.body ?? ''),
    );
  });
});
