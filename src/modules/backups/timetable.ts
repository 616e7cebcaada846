/**
 * The backup timetable (§17 rule 6): setting `backups.schedule` `{enabled, time: "HH:MM", days}` in
 * the appliance's local time. A slot's instant follows §11.6 rule 2 (schedule/engine/tz.ts
 * `fromLocalNaive`): a time inside a spring-forward gap runs at the first moment after it (02:30 →
 * 03:00), a time that repeats at fall-back resolves to its first instance; and a slot runs once
 * because the last slot handled is stored (`backup_timetable`). A slot missed while the daemon was
 * down is the newest slot after the stored one: it runs once at the next start.
 *
 * Decisions where §17 is silent: the first start (no stored slot) and a disabled timetable store
 * "now", so enabling it, or installing the appliance, never runs a slot of the past; a slot that
 * finds another job running is tried again each minute until it can start; a slot that cannot start
 * (no room) leaves a failed scheduled record, which raises `backup-failed`.
 *
 * One scheduled backup per slot, whatever the wall clock does (an appliance whose clock comes up
 * ahead or behind after a power cut and is then stepped by NTP, an operator's date change), also
 * decided here. A slot is a moment on the wall clock, so it runs when the clock says so; two rules
 * keep that to once a slot and skip none:
 * - a slot whose scheduled record exists (made, or failed to start) never runs again: after a step
 *   back, or a restart that reads an older stored slot (a restore), the slot already made is not made
 *   twice;
 * - a stored slot ahead of the clock (the clock was ahead when it was handled, or is behind now) is
 *   brought back to the newest slot at or before now, so the slots between now and it run at their
 *   times instead of being taken as done. A slot the clock ran early (ahead at boot, the missed slot
 *   run at once) stays that slot's backup: it is not made again when the real time comes.
 * A step ahead past slots runs the newest once, as a start after an outage does.
 */
import { and, eq } from 'drizzle-orm';
import { getSettingGroup, getTimezone, type SettingGroups, WEEKDAYS } from '../../core/settings';
import { backups, backupTimetable } from '../../db/schema';
import type { Deps } from '../../deps';
import { AppError } from '../../http/errors';
import { transact } from '../../realtime/emit';
import { DAY_MS, fromLocalNaive, toLocalNaive } from '../schedule/engine/tz';
import { newJob } from './job';
import { finishBackup, insertBackup, startBackup } from './make';
import { applyRetention } from './retention';

type Timetable = SettingGroups['backups']['schedule'];

/** The newest slot at or before `now`, or null when the timetable names no day or time. */
export function lastSlot(timetable: Timetable, tz: string, now: number): number | null {
  const m = /^([01]\d|2[0-3]):([0-5]\d)$/.exec(timetable.time);
  if (!m) return null;
  const minutes = Number(m[1]) * 60 + Number(m[2]);
  const today = Math.floor(toLocalNaive(tz, now) / DAY_MS) * DAY_MS;
  for (let back = 0; back <= 7; back++) {
    const day = today - back * DAY_MS;
    const weekday = WEEKDAYS[(new Date(day).getUTCDay() + 6) % 7];
    if (!weekday || !timetable.days.includes(weekday)) continue;
    const instant = fromLocalNaive(tz, day + minutes * 60_000);
    if (instant <= now) return instant;
  }
  return null;
}

function storedSlot(deps: Deps): number | null {
  return deps.db.select().from(backupTimetable).where(eq(backupTimetable.id, 1)).get()?.lastSlot ?? null;
}

function storeSlot(deps: Deps, slot: number): void {
  deps.db
    .insert(backupTimetable)
    .values({ id: 1, lastSlot: slot })
    .onConflictDoUpdate({ target: backupTimetable.id, set: { lastSlot: slot } })
    .run();
}

/** Whether a scheduled backup was made (or failed to start) for this slot. */
function slotHandled(deps: Deps, slot: number): boolean {
  return (
    deps.db
      .select({ id: backups.id })
      .from(backups)
      .where(and(eq(backups.type, 'scheduled'), eq(backups.scheduledFor, slot)))
      .get() !== undefined
  );
}

/** A slot that could not start: a failed scheduled record (and so the `backup-failed` alert). */
function failedStart(deps: Deps, slot: number, error: string): void {
  const job = newJob(deps, 'backup');
  const row = transact(deps, () =>
    insertBackup(
      deps,
      { includeMedia: getSettingGroup(deps, 'backups').includeMedia, keep: false },
      'scheduled',
      job,
      slot,
    ),
  );
  finishBackup(deps, row.id, { job, progress: () => {} }, error);
}

/** One look at the timetable (every minute, and at start); what it did. */
export function runTimetable(deps: Deps): 'started' | 'failed' | 'busy' | 'none' {
  const now = deps.clock.now();
  const { schedule } = getSettingGroup(deps, 'backups');
  let stored = storedSlot(deps);
  if (stored === null || !schedule.enabled) {
    transact(deps, () => storeSlot(deps, now));
    return 'none';
  }
  const slot = lastSlot(schedule, getTimezone(deps), now);
  if (stored > now) {
    // The clock is behind the slot last handled: from now on, each slot at its time.
    const back = slot ?? now;
    transact(deps, () => storeSlot(deps, back));
    stored = back;
  }
  if (slot === null || slot <= stored) return 'none';
  if (slotHandled(deps, slot)) {
    transact(deps, () => storeSlot(deps, slot));
    return 'none';
  }
  if (deps.backups.running) return 'busy';
  try {
    startBackup(deps, null, {}, 'scheduled', { scheduledFor: slot, after: () => applyRetention(deps) });
    transact(deps, () => storeSlot(deps, slot));
    return 'started';
  } catch (err) {
    if (!(err instanceof AppError) || err.errorCode !== 'insufficient_storage') throw err;
    transact(deps, () => storeSlot(deps, slot));
    failedStart(deps, slot, err.message);
    return 'failed';
  }
}
