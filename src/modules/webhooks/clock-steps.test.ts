/**
 * A venue back from a power cut whose clock came up months behind (the RTC lost its time) while the
 * webhook receiver, on a machine that lost power too, was still booting; then NTP steps the clock to
 * the real time. The failing streak is two failures minutes apart and the queued delivery is a few
 * minutes old: the webhook is not disabled as "failing for 3 days" and the delivery is not pruned as
 * "older than 14 days" (§10 rules 3, 4 and 7).
 */
import { describe, expect, it } from 'bun:test';
import { addSubsystem, recordEvents } from '../../../tests/helpers/app';
import { runDueDeliveries } from './dispatch';
import { pruneDeliveries } from './jobs';
import { addWebhook, deliveryRows, receiverPool, T0, webhookApp } from './test-support';

const serve = receiverPool();
const DAY = 86_400_000;

describe('a wall clock stepped months ahead after a power cut', () => {
  it('neither disables a webhook that failed twice nor drops the delivery it is retrying', async () => {
    const t = webhookApp();
    const r = serve();
    r.respond = () => new Response('booting', { status: 503 });
    await addSubsystem(t, 'media');
    const hook = await addWebhook(t, { url: r.url, allowPrivateNetwork: true, events: ['subsystem.updated'] });
    const disabled = recordEvents(t, (e) => e.type === 'webhook.disabled');
    await t.call('PATCH', '/subsystems/media', { as: 'admin', body: { displayName: 'Stage' } });
    await runDueDeliveries(t.deps);
    expect(deliveryRows(t, hook._id).map((d) => d.status)).toEqual(['retrying']);

    // NTP: the real date is 45 days later. The retry is due at once and fails again.
    t.clock.setWall(Date.parse(T0) + 45 * DAY);
    await runDueDeliveries(t.deps);
    expect(r.received).toHaveLength(2);
    expect(disabled).toEqual([]);
    const read = await t.call('GET', `/webhook/${hook._id}`, { as: 'admin' });
    expect(read.body).toMatchObject({ active: true, state: 'failing', consecutiveFailures: 2 });
    expect(pruneDeliveries(t.deps)).toBe(0);
    expect(deliveryRows(t, hook._id).map((d) => d.status)).toEqual(['retrying']);

    // The receiver is up: the next retry delivers the event, under the same webhook-id.
    r.respond = () => new Response('ok');
    t.clock.advance(5 * 60_000);
    await runDueDeliveries(t.deps);
    expect(deliveryRows(t, hook._id).map((d) => d.status)).toEqual(['succeeded']);
    expect(new Set(r.received.map((x) => x.headers['webhook-id'])).size).toBe(1);
    expect((await t.call('GET', `/webhook/${hook._id}`, { as: 'admin' })).body).toMatchObject({ state: 'active' });
  });

  it('still drops a disabled webhook’s undelivered deliveries after 14 days, and finished ones of any', async () => {
    const t = webhookApp();
    const r = serve();
    r.respond = () => new Response('down', { status: 503 });
    await addSubsystem(t, 'media');
    const off = await addWebhook(t, { url: r.url, allowPrivateNetwork: true, events: ['subsystem.updated'] });
    await t.call('PATCH', '/subsystems/media', { as: 'admin', body: { displayName: 'Stage' } });
    await runDueDeliveries(t.deps);
    expect((await t.call('PATCH', `/webhook/${off._id}`, { as: 'admin', body: { active: false } })).status).toBe(200);
    t.clock.advance(15 * DAY);
    expect(pruneDeliveries(t.deps)).toBe(1);
    expect(deliveryRows(t, off._id)).toEqual([]);
  });
});
