import { describe, expect, it } from 'bun:test';
import { addSubsystem, type TestApp } from '../../../tests/helpers/app';
import { writerFor } from '../../db/writer';
import { inFlightCount, kickDispatcher, startDispatcher, stopDispatcher, YIELD_TO_INGEST_MS } from './dispatch';
import { addWebhook, receiverPool, webhookApp } from './test-support';

const serve = receiverPool();
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Keeps value-write-like jobs waiting for the writer at every timer turn until stopped. */
function flood(t: TestApp): () => void {
  let running = true;
  const next = () => {
    if (!running) return;
    void writerFor(t.deps).submit(() => null);
    setImmediate(next);
  };
  next();
  return () => {
    running = false;
  };
}

describe('deliveries yield to ingest', () => {
  it('one attempt at a time while writes wait for the writer, up to the cap once they do not', async () => {
    const t = webhookApp();
    const slow = serve('/slow');
    let release: () => void = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    slow.respond = async () => {
      await gate;
      return new Response('ok');
    };
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
