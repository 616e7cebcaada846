/**
 * What the webhook module runs on timers (main starts it; tests call `runDueDeliveries` and
 * `pruneDeliveries` on the fake clock): a dispatcher look every second and right after an event
 * queued deliveries (yielding while value writes congest the writer); hourly the delivery log
 * retention (§10 rule 7); every minute the queue's bound (`pruneDeliveries` says what each keeps).
 */
import { iso } from '../../clock';
import { writePlatformLog } from '../../core/platform-log';
import type { Deps } from '../../deps';
import type { ModuleJobs } from '../../jobs/scheduler';
import { transact } from '../../realtime/emit';
import { onDeliveriesQueued } from '../../realtime/outbox';
import { kickDispatcher, look, startDispatcher, stopDispatcher } from './dispatch';

export const RETENTION_MS = 14 * 24 * 60 * 60 * 1000;
/** The delivery log's cap (§10 rule 7): finished deliveries (succeeded, dead) kept per webhook. */
export const MAX_DELIVERIES_PER_WEBHOOK = 10_000;
/** The queue's cap: deliveries still to be attempted (pending, retrying) kept per webhook. */
export const MAX_QUEUED_PER_WEBHOOK = 100_000;
/** How long shutdown waits for running attempts before leaving them due for the next start. */
const SHUTDOWN_GRACE_MS = 2000;

/**
 * The delivery log's retention (§10 rule 7) and the queue's bound. Decided here, where rule 7 ("at
 * most 10000 deliveries per webhook") meets rule 3 and "never lost: queued deliveries":
 *
 * - The log's 14 days and 10000 per webhook count finished deliveries (succeeded, dead) and prune
 *   only those, oldest first. A delivery still to be attempted is never pruned by that cap, nor by
 *   age while its webhook is active: a receiver down for a day behind a busy venue has more than
 *   10000 events waiting, and pruning the log used to drop the oldest of them unsent. A disabled or
 *   inactive webhook's waiting deliveries still age out after 14 days, as before (it sends nothing).
 * - What bounds the disk while a receiver stays down under a flood of events: a webhook failing for
 *   3 days is disabled (rule 4) and is queued nothing more; before that, its queue keeps at most the
 *   newest `MAX_QUEUED_PER_WEBHOOK` (100000, about 100 MB at 1 KB a delivery). Past that the oldest
 *   waiting deliveries are dropped, never silently: a `system` warning in the log names the webhook,
 *   how many were dropped and the time of the oldest kept. The newest are kept because a receiver
 *   coming back wants the venue's present state more than its oldest changes. Checked every minute
 *   (`webhooks.queue-bound`: one count over the due index per webhook; the rows are read only when
 *   a queue is over), so a flood overshoots the bound by at most a minute of its events.
 */
export function pruneDeliveries(deps: Deps): number {
  const cutoff = deps.clock.now() - RETENTION_MS;
  let removed = deps.sqlite.run(
    `DELETE FROM webhook_deliveries WHERE created_at < ?
       AND (next_attempt_at IS NULL OR webhook_id NOT IN (SELECT id FROM webhooks WHERE active = 1))`,
    [cutoff],
  ).changes;
  const keep = deps.sqlite.query<{ id: number }, [number, number]>(
    `SELECT id FROM webhook_deliveries WHERE webhook_id = ? AND next_attempt_at IS NULL
     ORDER BY id DESC LIMIT 1 OFFSET ?`,
  );
  for (const { id } of webhookIds(deps)) {
    const oldestKept = keep.get(id, MAX_DELIVERIES_PER_WEBHOOK - 1);
    if (!oldestKept) continue;
    removed += deps.sqlite.run(
      'DELETE FROM webhook_deliveries WHERE webhook_id = ? AND next_attempt_at IS NULL AND id < ?',
      [id, oldestKept.id],
    ).changes;
  }
  return removed + boundQueues(deps);
}

function webhookIds(deps: Deps): { id: number; display_name: string }[] {
  return deps.sqlite.query<{ id: number; display_name: string }, []>('SELECT id, display_name FROM webhooks').all();
}

/** Drops the oldest waiting deliveries of each webhook past `MAX_QUEUED_PER_WEBHOOK`, and says so; how many. */
export function boundQueues(deps: Deps): number {
  const waiting = deps.sqlite.query<{ n: number }, [number]>(
    'SELECT count(*) AS n FROM webhook_deliveries WHERE webhook_id = ? AND next_attempt_at IS NOT NULL',
  );
  let dropped = 0;
  for (const hook of webhookIds(deps)) {
    const over = (waiting.get(hook.id)?.n ?? 0) - MAX_QUEUED_PER_WEBHOOK;
    if (over <= 0) continue;
    const oldestKept = deps.sqlite
      .query<{ id: number; created_at: number }, [number, number]>(
        `SELECT id, created_at FROM webhook_deliveries WHERE webhook_id = ? AND next_attempt_at IS NOT NULL
         ORDER BY id LIMIT 1 OFFSET ?`,
      )
      .get(hook.id, over);
    if (!oldestKept) continue;
    const n = transact(deps, () => {
      const gone = deps.sqlite.run(
        'DELETE FROM webhook_deliveries WHERE webhook_id = ? AND next_attempt_at IS NOT NULL AND id < ?',
        [hook.id, oldestKept.id],
      ).changes;
      writePlatformLog(deps, {
        category: 'system',
        key: 'webhook.queue_full',
        severity: 'warning',
        value:
          `webhook ${hook.id} (${hook.display_name}): ${gone} undelivered deliveries dropped, the oldest first: ` +
          `more than ${MAX_QUEUED_PER_WEBHOOK} were waiting for its receiver; the oldest kept is from ${iso(oldestKept.created_at)}`,
      });
      return gone;
    });
    deps.log.warn({ webhookId: hook.id, dropped: n }, 'webhook queue over its bound: oldest deliveries dropped');
    dropped += n;
  }
  return dropped;
}

/** Starts the dispatcher and the retention job; the returned function stops them (shutdown). */
/**
 * The dispatcher (started with the daemon, kicked whenever deliveries are queued, and every second
 * for retries that came due), and the hourly prune. At stop no new attempt starts; running ones get
 * a moment, else they stay due for the next start.
 */
export function webhookJobs(deps: Deps): ModuleJobs {
  return {
    start: () => {
      startDispatcher(deps);
      onDeliveriesQueued(deps, () => kickDispatcher(deps));
      kickDispatcher(deps);
    },
    jobs: [
      { name: 'webhooks.look', pattern: '* * * * * *', run: () => void look(deps) },
      { name: 'webhooks.deliveries-prune', pattern: '0 23 * * * *', run: () => void pruneDeliveries(deps) },
      { name: 'webhooks.queue-bound', pattern: '30 * * * * *', run: () => void boundQueues(deps) },
    ],
    stop: async () => {
      onDeliveriesQueued(deps, null);
      await stopDispatcher(deps, SHUTDOWN_GRACE_MS);
    },
  };
}
