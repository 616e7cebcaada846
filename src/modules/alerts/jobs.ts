/**
 * What the alerts module runs on timers (main starts it; tests call `tickAlerts` after moving the
 * fake clock): every second, due delays fire, snoozes that ended notify their open incidents once,
 * and `repeat` rules notify again (a delay and a repeat interval count elapsed time whatever the wall
 * clock does, store.ts `followWallClock`; a snooze ends at the moment it names); every minute, the
 * media disk's free space (`storage-low`); hourly, incidents closed more than 365 days ago are removed.
 */
import { and, eq, isNotNull, isNull, lt, lte, or, sql } from 'drizzle-orm';
import { prepared } from '../../db/prepared';
import { alertIncidents, alertRules } from '../../db/schema';
import type { Deps } from '../../deps';
import type { ModuleJobs } from '../../jobs/scheduler';
import { transact } from '../../realtime/emit';
import { notify, notifyUnnotified } from './engine';
import { evaluateNow } from './evaluate';
import { findRule, followWallClock, updateRule } from './store';
import { checkStorage } from './system';

const HISTORY_DAYS = 365;

/** The per-second pass's reads, prepared once (built per call, they cost 40–60 µs each, every second). */
function tickStatements(deps: Deps) {
  return prepared(deps, 'alerts.tick', () => {
    const now = sql.placeholder('now');
    return {
      due: deps.db
        .select()
        .from(alertRules)
        .where(
          and(
            eq(alertRules.active, true),
            isNotNull(alertRules.pendingSince),
            sql`${alertRules.pendingSince} + ${alertRules.delaySeconds} * 1000 <= ${now}`,
          ),
        )
        .prepare(),
      woken: deps.db
        .select()
        .from(alertRules)
        .where(and(isNotNull(alertRules.snoozedUntil), lte(alertRules.snoozedUntil, now)))
        .prepare(),
      repeats: deps.db
        .select({ incident: alertIncidents, rule: alertRules })
        .from(alertIncidents)
        .innerJoin(alertRules, eq(alertIncidents.alertId, alertRules.id))
        .where(
          and(
            eq(alertIncidents.state, 'open'),
            eq(alertIncidents.notified, true),
            isNull(alertIncidents.acknowledgedAt),
            eq(alertRules.lifeCycle, 'repeat'),
            eq(alertRules.active, true),
            or(isNull(alertRules.snoozedUntil), lte(alertRules.snoozedUntil, now)),
            sql`${alertIncidents.lastNotifiedAt} + ${alertRules.repeatIntervalSeconds} * 1000 <= ${now}`,
          ),
        )
        .prepare(),
    };
  });
}

/** One pass of the per-second work. */
export function tickAlerts(deps: Deps): void {
  followWallClock(deps);
  const now = deps.clock.now();
  const s = tickStatements(deps);
  for (const rule of s.due.all({ now })) evaluateNow(deps, rule);

  for (const rule of s.woken.all({ now })) {
    transact(deps, () => {
      updateRule(deps, rule.id, { snoozedUntil: null });
      const fresh = findRule(deps, rule.id);
      if (fresh?.active) notifyUnnotified(deps, fresh);
    });
  }

  for (const { incident, rule } of s.repeats.all({ now })) notify(deps, rule, incident);
}

/** Removes incidents closed more than 365 days ago; how many. */
export function pruneIncidents(deps: Deps): number {
  const cutoff = deps.clock.now() - HISTORY_DAYS * 24 * 3600_000;
  return deps.db
    .delete(alertIncidents)
    .where(and(eq(alertIncidents.state, 'closed'), lt(alertIncidents.closedAt, cutoff)))
    .returning({ id: alertIncidents.id })
    .all().length;
}

/** Starts the timers; the returned function stops them (shutdown). Called from main only. */
/** The per-second tick (due delays, snoozes that ended, repeats) and the hourly incident prune. */
export function alertJobs(deps: Deps): ModuleJobs {
  return {
    jobs: [
      { name: 'alerts.tick', pattern: '* * * * * *', run: () => tickAlerts(deps) },
      { name: 'alerts.storage', pattern: '30 * * * * *', run: () => checkStorage(deps) },
      {
        name: 'alerts.history-prune',
        pattern: '0 23 * * * *',
        run: () => {
          const removed = pruneIncidents(deps);
          if (removed > 0) deps.log.info({ removed }, 'old alert incidents removed');
        },
      },
    ],
  };
}
