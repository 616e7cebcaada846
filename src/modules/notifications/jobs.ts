/**
 * What the notifications module schedules: expiry every second (`expiresAt`, cleared by `system` "at
 * that time", §7: a minute's job left "Doors open in 5 minutes" on the consoles up to 59 s too long)
 * and retention daily at 03:40 (rule 5: cleared ones kept `notifications.retentionDays`, at most
 * 10000 stored, the oldest cleared removed first; shown ones are never removed).
 */
import { and, asc, count, eq, inArray, isNotNull, lt, lte, sql } from 'drizzle-orm';
import { getSettingGroup } from '../../core/settings';
import { prepared } from '../../db/prepared';
import { notifications } from '../../db/schema';
import type { Deps } from '../../deps';
import type { ModuleJobs } from '../../jobs/scheduler';
import { transact } from '../../realtime/emit';
import { clearRow } from './clear';

const DAY_MS = 24 * 60 * 60 * 1000;
export const MAX_STORED = 10000;

/** Clears every shown notification whose `expiresAt` has come; how many. Every second: prepared once, on the expiry index. */
export function expireNotifications(deps: Deps): number {
  const { due: dueAt } = prepared(deps, 'notifications.expiry', () => ({
    due: deps.db
      .select({ id: notifications.id })
      .from(notifications)
      .where(
        and(
          isNotNull(notifications.expiresAt),
          lte(notifications.expiresAt, sql.placeholder('now')),
          // `+state`: the expiry index finds the few due rows; the state index would walk every shown one.
          sql`+${notifications.state} = 'shown'`,
        ),
      )
      .prepare(),
  }));
  const due = dueAt.all({ now: deps.clock.now() });
  let cleared = 0;
  for (const { id } of due) if (clearRow(deps, null, id, 'system')) cleared += 1;
  return cleared;
}

export interface NotificationRetention {
  expired: number;
  overLimit: number;
}

export function applyNotificationRetention(deps: Deps): NotificationRetention {
  const { retentionDays } = getSettingGroup(deps, 'notifications');
  const cutoff = deps.clock.now() - retentionDays * DAY_MS;
  return transact(deps, () => {
    const expired = deps.db
      .delete(notifications)
      .where(and(eq(notifications.state, 'cleared'), lt(notifications.clearedAt, cutoff)))
      .returning({ id: notifications.id })
      .all().length;
    const stored = deps.db.select({ n: count() }).from(notifications).get()?.n ?? 0;
    let overLimit = 0;
    if (stored > MAX_STORED) {
      const oldest = deps.db
        .select({ id: notifications.id })
        .from(notifications)
        .where(eq(notifications.state, 'cleared'))
        .orderBy(asc(notifications.clearedAt), asc(notifications.id))
        .limit(stored - MAX_STORED)
        .all()
        .map((r) => r.id);
      for (let i = 0; i < oldest.length; i += 500) {
        overLimit += deps.db
          .delete(notifications)
          .where(inArray(notifications.id, oldest.slice(i, i + 500)))
          .returning({ id: notifications.id })
          .all().length;
      }
    }
    return { expired, overLimit };
  });
}

/** Expiry every second, retention daily at 03:40. */
export function notificationJobs(deps: Deps): ModuleJobs {
  return {
    jobs: [
      {
        name: 'notifications.expiry',
        pattern: '* * * * * *',
        run: () => {
          const cleared = expireNotifications(deps);
          if (cleared > 0) deps.log.info({ cleared }, 'expired notifications cleared');
        },
      },
      {
        name: 'notifications.retention',
        pattern: '0 40 3 * * *',
        run: () => {
          const removed = applyNotificationRetention(deps);
          if (removed.expired + removed.overLimit > 0) deps.log.info({ removed }, 'old notifications removed');
        },
      },
    ],
  };
}
