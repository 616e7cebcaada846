/**
 * What the webhook module runs on timers (main starts it; tests call `runDueDeliveries` and
 * `pruneDeliveries` on the fake clock): a dispatcher look every second and right after an event
 * queued deliveries (yielding while value writes congest the writer); hourly the delivery log
 * retention (§10 rule 7).
 */
import type { Deps } from '../../deps';
import type { ModuleJobs } from '../../jobs/scheduler';
import { onDeliveriesQueued } from '../../realtime/outbox';
import { kickDispatcher, look, startDispatcher, stopDispatcher } from './dispatch';

export const RETENTION_MS = 14 * 24 * 60 * 60 * 1000;
export const MAX_DELIVERIES_PER_WEBHOOK = 10_000;
/** How long shutdown waits for running attempts before leaving them due for the next start. */
const SHUTDOWN_GRACE_MS = 2000;

/**
 * Drops deliveries older than 14 days and all but the newest 10000 of each webhook. A delivery an
 * active webhook is still retrying is never dropped by age (rule 3: queued deliveries are never
 * lost): its retries end within about 28 h anyway, and one older than 14 days only exists when the
 * wall clock was stepped ahead (an appliance back from a power cut with a clock months behind, then
 * NTP) or the daemon was down that long. A disabled or inactive webhook's pending deliveries still
 * age out, as before.
 */
export function pruneDeliveries(deps: Deps): number {
  const cutoff = deps.clock.now() - RETENTION_MS;
  let removed = deps.sqlite.run(
    `DELETE FROM webhook_deliveries WHERE created_at < ?
       AND (next_attempt_at IS NULL OR webhook_id NOT IN (SELECT id FROM webhooks WHERE active = 1))`,
    [cutoff],
  ).changes;
  const ids = deps.sqlite.query<{ id: number }, []>('SELECT id FROM webhooks').all();
  const keep = deps.sqlite.query<{ id: number }, [number, number]>(
    'SELECT id FROM webhook_deliveries WHERE webhook_id = ? ORDER BY id DESC LIMIT 1 OFFSET ?',
  );
  for (const { id } of ids) {
    const oldestKept = keep.get(id, MAX_DELIVERIES_PER_WEBHOOK - 1);
    if (!oldestKept) continue;
    removed += deps.sqlite.run('DELETE FROM webhook_deliveries WHERE webhook_id = ? AND id < ?', [
      id,
      oldestKept.id,
    ]).changes;
  }
  return removed;
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
    ],
    stop: async () => {
      onDeliveriesQueued(deps, null);
      await stopDispatcher(deps, SHUTDOWN_GRACE_MS);
    },
  };
}
