/**
 * Set-up for the "a write and its webhook events commit together" tests (§10 rule 3) of the
 * configuration modules: a webhook for every event, and a switch that makes queueing the audit
 * entry's `log.created` delivery fail, as a full disk or a broken outbox would. A write converted to
 * `transact` then rolls back whole: no row, no delivery, no bus event.
 */
import { expect } from 'bun:test';
import { makeTestApp, recordEvents, rowCount, type TestApp } from '../../../tests/helpers/app';

export interface OutboxTestApp extends TestApp {
  /** Every bus event since set-up. */
  events: ReturnType<typeof recordEvents>;
  /** From now on, queueing a `log.created` delivery fails (the audit entry of every write). */
  breakAudit(): void;
  /** From now on, the writer's outbox row fails (the events of every write it batches). */
  breakBatchOutbox(): void;
  /** Deliveries queued so far, all event types. */
  deliveries(): number;
}

export async function outboxApp(): Promise<OutboxTestApp> {
  const t = makeTestApp();
  const hook = await t.call('POST', '/webhook', {
    as: 'admin',
    body: { displayName: 'all', url: 'http://receiver.invalid/hook', events: ['*'] },
  });
  expect(hook.status).toBe(201);
  const events = recordEvents(t);
  return {
    ...t,
    events,
    breakAudit: () => {
      t.deps.sqlite.run(
        `CREATE TRIGGER IF NOT EXISTS outbox_down BEFORE INSERT ON webhook_deliveries WHEN NEW.event_type = 'log.created'
         BEGIN SELECT RAISE(ABORT, 'outbox down'); END`,
      );
    },
    breakBatchOutbox: () => {
      t.deps.sqlite.run(
        `CREATE TRIGGER IF NOT EXISTS batch_outbox_down BEFORE INSERT ON webhook_outbox
         BEGIN SELECT RAISE(ABORT, 'outbox down'); END`,
      );
    },
    deliveries: () => rowCount(t, 'webhook_deliveries'),
  };
}

/**
 * Runs a write with the audit's delivery broken (or what `breakOutbox` breaks) and checks it left
 * nothing behind: the answer is the constraint failure (409), no delivery was queued and no event (of
 * those `published` selects) was published. Returns the answer.
 */
export async function expectRolledBack(
  t: OutboxTestApp,
  write: () => ReturnType<TestApp['call']>,
  published: (type: string) => boolean = () => true,
  breakOutbox: () => void = t.breakAudit,
) {
  breakOutbox();
  const deliveries = t.deliveries();
  const seen = t.events.length;
  const res = await write();
  expect(res.status).toBe(409);
  expect(t.deliveries()).toBe(deliveries);
  expect(t.events.slice(seen).filter((e) => published(e.type))).toEqual([]);
  return res;
}
