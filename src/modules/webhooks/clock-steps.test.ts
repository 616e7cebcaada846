/**
 * A venue back from a power cut whose clock came up months behind (the RTC lost its time) while the
 * webhook receiver, on a machine that lost power too, was still booting; then NTP steps the clock to
 * the real time. The failing streak is two failures minutes apart and the queued delivery is a few
 * minutes old: the webhook is not disabled as "failing for 3 days" and the delivery is not pruned as
 * "older than 14 days" (§10 rules 3, 4 and 7).
 */
import { describe, expect, it } from 'bun:test';
import { addSubsystem, recordEvents } from '../../../tests/helpers/app';
import { takeInOutbox } from '../../realtime/outbox';
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

    // NTP: the real date is 45 days later. The retry still waits its 5 seconds, then fails again.
    t.clock.setWall(Date.parse(T0) + 45 * DAY);
    await runDueDeliveries(t.deps);
    expect(r.received).toHaveLength(1);
    t.clock.advance(5000);
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

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

/** A webhook whose receiver answers 503, with one delivery that failed twice: its next retry is 5 minutes away. */
async function failingTwice() {
  const t = webhookApp();
  const r = serve();
  r.respond = () => new Response('down', { status: 503 });
  await addSubsystem(t, 'media');
  const hook = await addWebhook(t, { url: r.url, allowPrivateNetwork: true, events: ['subsystem.updated'] });
  await t.call('PATCH', '/subsystems/media', { as: 'admin', body: { displayName: 'Stage' } });
  await runDueDeliveries(t.deps);
  t.clock.advance(5000);
  await runDueDeliveries(t.deps);
  expect(r.received).toHaveLength(2);
  const shown = async () =>
    (await t.call('GET', `/webhook/${hook._id}/deliveries`, { as: 'admin' })).body[0] as { nextAttemptAt: string };
  expect((await shown()).nextAttemptAt).toBe(new Date(t.clock.now() + 5 * MINUTE).toISOString());
  return { t, r, hook, shown };
}

describe('retry waits while the wall clock steps', () => {
  it('a step of a day ahead does not fire a waiting retry at once; it waits its 5 minutes', async () => {
    const { t, r, shown } = await failingTwice();
    t.clock.advance(MINUTE);
    t.clock.setWall(t.clock.now() + 24 * HOUR);
    await runDueDeliveries(t.deps);
    expect(r.received).toHaveLength(2);
    // What the API shows is the retry time on the clock as it now stands.
    expect((await shown()).nextAttemptAt).toBe(new Date(t.clock.now() + 4 * MINUTE).toISOString());
    t.clock.advance(4 * MINUTE - 1000);
    await runDueDeliveries(t.deps);
    expect(r.received).toHaveLength(2);
    t.clock.advance(1000);
    await runDueDeliveries(t.deps);
    expect(r.received).toHaveLength(3);
  });

  it('a step of three hours back does not hold a retry for three hours', async () => {
    const { t, r } = await failingTwice();
    t.clock.setWall(t.clock.now() - 3 * HOUR);
    await runDueDeliveries(t.deps);
    t.clock.advance(5 * MINUTE);
    await runDueDeliveries(t.deps);
    expect(r.received).toHaveLength(3);
  });

  it('a delivery queued before a step back is still due at once', async () => {
    const t = webhookApp();
    const r = serve();
    await addSubsystem(t, 'media');
    await addWebhook(t, { url: r.url, allowPrivateNetwork: true, events: ['subsystem.updated'] });
    await runDueDeliveries(t.deps);
    await t.call('PATCH', '/subsystems/media', { as: 'admin', body: { displayName: 'Stage' } });
    while (takeInOutbox(t.deps)) {}
    t.clock.setWall(t.clock.now() - 3 * HOUR);
    await runDueDeliveries(t.deps);
    expect(r.received).toHaveLength(1);
  });

  it('a value write queued in the outbox before a step back, taken in after it, is due at once', async () => {
    const t = webhookApp();
    const r = serve();
    const media = await addSubsystem(t, 'media');
    const v = await t.call('PUT', '/variables', { as: 'admin', body: { subsystemId: media._id, externalRef: 'x' } });
    await addWebhook(t, { url: r.url, allowPrivateNetwork: true, events: ['variable.changed'] });
    await runDueDeliveries(t.deps);
    await t.call('POST', `/variables/${v.body._id}/value`, { from: '127.0.0.1', body: { value: '1' } });
    t.clock.setWall(t.clock.now() - 3 * HOUR);
    await runDueDeliveries(t.deps);
    expect(r.received).toHaveLength(1);
  });

  it('a retry recorded while the clock stepped during the attempt is not moved by that step', async () => {
    const t = webhookApp();
    const r = serve();
    await addSubsystem(t, 'media');
    const hook = await addWebhook(t, { url: r.url, allowPrivateNetwork: true, events: ['subsystem.updated'] });
    await runDueDeliveries(t.deps);
    // The step comes while the receiver is answering the first attempt.
    r.respond = () => {
      t.clock.setWall(t.clock.now() + 2 * HOUR);
      return new Response('down', { status: 503 });
    };
    await t.call('PATCH', '/subsystems/media', { as: 'admin', body: { displayName: 'Stage' } });
    await runDueDeliveries(t.deps);
    r.respond = () => new Response('ok');
    t.clock.advance(5000);
    await runDueDeliveries(t.deps);
    expect(r.received).toHaveLength(2);
    expect(deliveryRows(t, hook._id).map((d) => d.status)).toEqual(['succeeded']);
  });
});

describe('a restart whose clock is behind the stored retries (an RTC that lost time)', () => {
  it('a retry waits its wait from the start, not until the clock reaches a time stamped ahead of it', async () => {
    const first = webhookApp();
    const r = serve();
    r.respond = () => new Response('down', { status: 503 });
    await addSubsystem(first, 'media');
    await addWebhook(first, { url: r.url, allowPrivateNetwork: true, events: ['subsystem.updated'] });
    await first.call('PATCH', '/subsystems/media', { as: 'admin', body: { displayName: 'Stage' } });
    await runDueDeliveries(first.deps);
    first.deps.sqlite.close();
    const t = webhookApp({ dataDir: first.deps.config.dataDir });
    t.clock.setWall(first.clock.now() - 6 * HOUR);
    await runDueDeliveries(t.deps);
    expect(r.received).toHaveLength(1);
    t.clock.advance(5000);
    await runDueDeliveries(t.deps);
    expect(r.received).toHaveLength(2);
  });
});
