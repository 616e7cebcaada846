/**
 * Webhook deliveries on a full disk: an attempt whose outcome cannot be recorded (SQLITE_FULL, made
 * deterministic with `PRAGMA max_page_count`) leaves its delivery due in the database; the
 * dispatcher must not send it again at once, in a loop, for as long as the disk stays full, and must
 * send it again once the hold is over.
 */
import { describe, expect, it } from 'bun:test';
import { until } from '../../../tests/helpers/until';
import { look, startDispatcher, stopDispatcher, UNRECORDED_HOLD_MS } from './dispatch';
import { addWebhook, deliveryRows, receiverPool, webhookApp } from './test-support';

const serve = receiverPool();
const DELIVERIES = 20;

describe('webhook deliveries on a full disk', () => {
  it('holds a delivery whose attempt could not be recorded instead of resending it in a loop', async () => {
    const t = webhookApp();
    const r = serve();
    // A 1 KiB answer is kept as the excerpt: recording an attempt grows its row and soon needs a page.
    r.respond = () => new Response('a'.repeat(1024));
    const hook = await addWebhook(t, { url: r.url, allowPrivateNetwork: true, events: ['subsystem.created'] });
    for (let i = 0; i < DELIVERIES; i++)
      expect((await t.call('POST', '/subsystems', { as: 'admin', body: { externalId: `s${i}` } })).status).toBe(201);
    expect(deliveryRows(t, hook._id)).toHaveLength(DELIVERIES);

    const sqlite = t.deps.sqlite;
    const pages = sqlite.query<{ page_count: number }, []>('PRAGMA page_count').get()?.page_count ?? 0;
    sqlite.run('CREATE TABLE zz_filler (b BLOB)');
    sqlite.run(`PRAGMA max_page_count = ${pages + 1}`);
    for (const size of [3000, 1000, 300, 100, 30]) {
      try {
        for (let i = 0; i < 1000; i++) sqlite.run('INSERT INTO zz_filler VALUES (randomblob(?))', [size]);
      } catch {
        // full at this size; go on with smaller ones
      }
    }

    startDispatcher(t.deps);
    try {
      await look(t.deps);
      await until(() => r.received.length >= DELIVERIES, 10_000);
      // Time for a resend loop to show: every finished attempt kicks the dispatcher at once.
      await Bun.sleep(300);
      const unrecorded = deliveryRows(t, hook._id).filter((d) => d.status === 'pending').length;
      expect(unrecorded).toBeGreaterThan(0);
      expect(r.received.length).toBe(DELIVERIES);

      // Room again and the hold over: the unrecorded deliveries go out again and are recorded.
      sqlite.run('PRAGMA max_page_count = 1073741823');
      t.clock.advance(UNRECORDED_HOLD_MS);
      await look(t.deps);
      const succeeded = () => deliveryRows(t, hook._id).every((d) => d.status === 'succeeded');
      await until(() => r.received.length >= DELIVERIES + unrecorded && succeeded(), 10_000);
      expect(r.received.length).toBe(DELIVERIES + unrecorded);
      expect(deliveryRows(t, hook._id).every((d) => d.status === 'succeeded')).toBe(true);
    } finally {
      await stopDispatcher(t.deps, 1000);
    }
  });
});
