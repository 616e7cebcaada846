import { describe, expect, it } from 'bun:test';
import { addSubsystem, recordEvents, type TestApp } from '../../../tests/helpers/app';
import { inFlightCount, runDueDeliveries } from './dispatch';
import { FAILING_DISABLE_MS, RETRY_DELAYS_MS } from './record';
import { addWebhook, deliveryRows, holdAnswers, receiverPool, webhookApp } from './test-support';

const serve = receiverPool();

async function queueOne(t: TestApp, name: string) {
  await t.call('PATCH', '/subsystems/media', { as: 'admin', body: { displayName: name } });
}

describe('webhook dispatcher limits', () => {
  it('runs at most 4 attempts per webhook and 16 overall', async () => {
    const t = webhookApp();
    const slow = serve('/slow');
    const fast = serve('/fast');
    const release = holdAnswers(slow);
    await addSubsystem(t, 'media');
    const slowHooks = [];
    for (let i = 0; i < 5; i++) {
      slowHooks.push(await addWebhook(t, { url: slow.url, allowPrivateNetwork: true, events: ['subsystem.updated'] }));
    }
    for (let i = 0; i < 5; i++) await queueOne(t, `n${i}`);
    const first = slowHooks[0]?._id ?? 0;
    const running = runDueDeliveries(t.deps);
    expect(inFlightCount(t.deps)).toBe(16);
    // Oldest due first across webhooks (the same instant: queue order), never more than 4 for one.
    expect(slowHooks.map((h) => inFlightCount(t.deps, h._id))).toEqual([4, 3, 3, 3, 3]);
    const quick = await addWebhook(t, { url: fast.url, allowPrivateNetwork: true, events: ['subsystem.updated'] });
    // Over the global cap nothing more starts until attempts finish.
    await queueOne(t, 'fast');
    await runDueDeliveries(t.deps);
    expect(fast.received).toHaveLength(0);
    release();
    await running;
    await runDueDeliveries(t.deps);
    expect(fast.received).toHaveLength(1);
    expect(deliveryRows(t, quick._id).map((d) => d.status)).toEqual(['succeeded']);
    // Its five and the 'fast' change, which it listens to as well.
    expect(deliveryRows(t, first).filter((d) => d.status === 'succeeded')).toHaveLength(6);
  });

  it('one slow webhook at its cap leaves room for another webhook', async () => {
    const t = webhookApp();
    const slow = serve('/slow');
    const fast = serve('/fast');
    const release = holdAnswers(slow);
    await addSubsystem(t, 'media');
    const a = await addWebhook(t, { url: slow.url, allowPrivateNetwork: true, events: ['subsystem.updated'] });
    const b = await addWebhook(t, { url: fast.url, allowPrivateNetwork: true, events: ['subsystem.updated'] });
    for (let i = 0; i < 6; i++) await queueOne(t, `n${i}`);
    const running = runDueDeliveries(t.deps);
    expect(inFlightCount(t.deps, a._id)).toBe(4);
    expect(inFlightCount(t.deps, b._id)).toBe(4);
    for (let i = 0; i < 100 && inFlightCount(t.deps, b._id) > 0; i++) await Bun.sleep(10);
    await runDueDeliveries(t.deps);
    expect(inFlightCount(t.deps, a._id)).toBe(4);
    expect(deliveryRows(t, b._id).every((d) => d.status === 'succeeded')).toBe(true);
    release();
    await running;
    await runDueDeliveries(t.deps);
    expect(deliveryRows(t, a._id).every((d) => d.status === 'succeeded')).toBe(true);
  });

  it('disables a webhook with no success for 3 days while deliveries kept failing, with a notification', async () => {
    const t = webhookApp();
    const r = serve();
    r.respond = () => new Response('down', { status: 503 });
    await addSubsystem(t, 'media');
    const hook = await addWebhook(t, { url: r.url, allowPrivateNetwork: true, events: ['subsystem.updated'] });
    const disabled = recordEvents(t, (e) => e.type === 'webhook.disabled');
    const step = 6 * 3_600_000;
    for (let elapsed = 0; elapsed < FAILING_DISABLE_MS; elapsed += step) {
      await queueOne(t, `n${elapsed}`);
      await runDueDeliveries(t.deps);
      t.clock.advance(step);
    }
    expect(disabled).toEqual([]);
    expect((await t.call('GET', `/webhook/${hook._id}`, { as: 'admin' })).body.state).toBe('failing');
    await queueOne(t, 'last');
    await runDueDeliveries(t.deps);
    expect(disabled.map((e) => e.data)).toEqual([{ _id: hook._id, disabledReason: 'failing' }]);
    const read = await t.call('GET', `/webhook/${hook._id}`, { as: 'admin' });
    expect(read.body).toMatchObject({ active: false, state: 'disabled', disabledReason: 'failing' });
    const notes = await t.call('GET', '/notifications', { as: 'admin' });
    const note = notes.body.filter((n: { key: string }) => n.key === `webhook-disabled:${hook._id}`);
    expect(note).toHaveLength(1);
    expect(note[0]).toMatchObject({ state: 'shown', count: 1 });
    const before = r.received.length;
    t.clock.advance(RETRY_DELAYS_MS[6] ?? 0);
    await runDueDeliveries(t.deps);
    expect(r.received).toHaveLength(before);
  });
});
