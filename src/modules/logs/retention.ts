/**
 * Retention (§9 rule 2): `activity` and `system` entries are kept for `logs.retentionDays` and at most
 * `logs.maxEntries` of them (oldest removed first); `audit` and `security` entries for
 * `logs.auditRetentionDays`. Run daily by the job in jobs.ts.
 */
import { and, desc, inArray, lt, sql } from 'drizzle-orm';
import { getSettingGroup } from '../../core/settings';
import { logs } from '../../db/schema';
import type { Deps } from '../../deps';
import { transact } from '../../realtime/emit';

const DAY_MS = 24 * 60 * 60 * 1000;
const ROUTINE = ['activity', 'system'];
const KEPT_LONGER = ['audit', 'security'];

export interface RetentionResult {
  expired: number;
  overLimit: number;
  auditExpired: number;
}

export function applyLogRetention(deps: Deps): RetentionResult {
  const { retentionDays, maxEntries, auditRetentionDays } = getSettingGroup(deps, 'logs');
  const now = deps.clock.now();
  return transact(deps, () => {
    const expired = deps.db
      .delete(logs)
      .where(and(inArray(logs.category, ROUTINE), lt(logs.time, now - retentionDays * DAY_MS)))
      .returning({ id: logs.id })
      .all().length;
    const auditExpired = deps.db
      .delete(logs)
      .where(and(inArray(logs.category, KEPT_LONGER), lt(logs.time, now - auditRetentionDays * DAY_MS)))
      .returning({ id: logs.id })
      .all().length;
    // The newest `maxEntries` routine entries stay; everything older than the last of them goes.
    const keep = deps.db
      .select({ time: logs.time, id: logs.id })
      .from(logs)
      .where(inArray(logs.category, ROUTINE))
      .orderBy(desc(logs.time), desc(logs.id))
      .limit(1)
      .offset(Math.max(0, maxEntries - 1))
      .get();
    const overLimit = keep
      ? deps.db
          .delete(logs)
          .where(
            and(
              inArray(logs.category, ROUTINE),
              sql`(${logs.time} < ${keep.time} or (${logs.time} = ${keep.time} and ${logs.id} < ${keep.id}))`,
            ),
          )
          .returning({ id: logs.id })
          .all().length
      : 0;
    return { expired, overLimit, auditExpired };
  });
}
