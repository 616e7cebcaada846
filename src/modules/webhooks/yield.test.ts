import { describe, expect, it } from 'bun:test';
import { addSubsystem, rowCount, type TestApp } from '../../../tests/helpers/app';
import { CONGESTED_QUEUE } from '../../db/writer';
import {
  inFlightCount,
  kickDispatcher,
  runDueDeliveries,
  startDispatcher,
  stopDispatcher,
  YIELD_TO_INGEST_MS,
} from './dispatch';
import { addWebhook, holdAnswers, receiverPool, webhookApp } from './test-support';

const serve = receiverPool();
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Keeps a burst of value-write-like jobs waiting for the writer at every timer turn until stopped. */
function flood(t: TestApp): () => void {
  let running = true;
  const next = () => {
    if (!running) return;
    for (let i = 0; i < CONGESTED_QUEUE; i++) void t.deps.work.submit(() => null);
    setImmediate(next);
  };
  next();
  return () => {
    running = false;
  };
}

describe('deliveries yield to ingest', () => {
  it('a yielding look starts one attempt and takes the outbox in only when nothing is due', async () => {
    const t = webhookApp();
    const r = serve();
    const hook = await addWebhook(t, { url: r.url, allowPrivateNetwork: true, events: ['variable.*'] });
    const writer = t.deps.work;
    const queue = (n: number) =>
      Promise.all(
        Array.from({ length: n }, (_, i) => writer.submit((scope) => scope.emit('variable.updated', { _id: i }))),
      );
    await queue(3);
    await queue(3);
    expect(rowCount(t, 'webhook_outbox')).toBe(2);
    await runDueDeliveries(t.deps, true);
    // Nothing was due: one outbox row was taken in, and one of its deliveries sent.
    expect(rowCount(t, 'webhook_outbox')).toBe(1);
    expect(r.received).toHaveLength(1);
    await runDueDeliveries(t.deps, true);
    expect(rowCount(t, 'webhook_outbox')).toBe(1);
    expect(r.received).toHaveLength(2);
    // A full look takes everything in and sends up to the webhook's cap.
    await runDueDeliveries(t.deps);
    expect(rowCount(t, 'webhook_outbox')).toBe(0);
    expect(r.received).toHaveLength(6);
    expect(rowCount(t, 'webhook_deliveries', `webhook_id = ${hook._id} AND status = 'succeeded'`)).toBe(6);
  });

  it('one attempt at a time while writes wait for the writer, up to the cap once they do not', async () => {
    const t = webhookApp();
    const slow = serve('/slow');
    const release = holdAnswers(slow);
    await addSubsystem(t, 'media');
    const hook = await addWebhook(t, { url: slow.url, allowPrivateNetwork: true, events: ['subsystem.updated'] });
    for (let i = 0; i < 6; i++)
      await t.call('PATCH', '/subsystems/media', { as: 'admin', body: { displayName: `n${i}` } });
    startDispatcher(t.deps);
    const stopFlood = flood(t);
    kickDispatcher(t.deps);
    await sleep(YIELD_TO_INGEST_MS * 4);
    expect(inFlightCount(t.deps, hook._id)).toBe(1);
    stopFlood();
    await sleep(YIELD_TO_INGEST_MS);
    kickDispatcher(t.deps);
    await sleep(YIELD_TO_INGEST_MS);
    expect(inFlightCount(t.deps, hook._id)).toBe(4);
    release();
    await stopDispatcher(t.deps, 1000);
  });
});
