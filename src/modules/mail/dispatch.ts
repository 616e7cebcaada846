/**
 * The mail dispatcher: picks due deliveries (`pending`, `nextAttemptAt` ≤ now), oldest first, at most
 * MAX_IN_FLIGHT at a time, sends each (transport.ts) and records the outcome in a small unit of its
 * own. A failure is retried after 1 min, 5 min, 15 min, 1 h, 3 h and 6 h; after the last the
 * delivery is `failed`, a `system` log entry and a `mail-failed` notification (for those who may
 * change the settings) say so. Missing mail settings count as a failure (the error says what is
 * missing), so mail queued before `smtp` was set goes out once it is. The waits count elapsed time,
 * whatever the wall clock does (`followWallClock`).
 *
 * Which deliveries are in flight lives only in memory: one whose attempt was running when the process
 * died was never recorded, so it is still due after a restart and is sent again (at least once).
 * `runDueMail` is the plain work function tests drive on the fake clock; mailJobs (jobs.ts) runs it
 * on a 1 s timer and right after mail is queued.
 */

import { inArray } from 'drizzle-orm';
import { writePlatformLog } from '../../core/platform-log';
import { followRetryTimes } from '../../core/retry-times';
import { getSettingGroup } from '../../core/settings';
import { updateRow } from '../../db/prepared';
import { mailDeliveries } from '../../db/schema';
import type { Deps } from '../../deps';
import { transact } from '../../realtime/emit';
import { raiseNotification } from '../notifications/show';
import { roleIdsHolding } from '../roles/service';
import { sendOverSmtp } from './transport';

export const MAX_IN_FLIGHT = 2;
/** The wait after the n-th failed attempt; the attempt after the last entry is the final one. */
export const RETRY_DELAYS_MS = [60_000, 300_000, 900_000, 3_600_000, 10_800_000, 21_600_000] as const;
export const MAX_ATTEMPTS = RETRY_DELAYS_MS.length + 1;

type DeliveryRow = typeof mailDeliveries.$inferSelect;

/**
 * The back-off counts elapsed time whatever the wall clock does (core/retry-times.ts): mail that
 * failed (`pending` with attempts) is the retrying rows, `lastAttemptAt` its failure; `lastAttemptAt`
 * and `sentAt` are records and stay as stamped.
 */
export function followWallClock(deps: Deps): void {
  followRetryTimes(deps, deps.mail.wallSteps, {
    table: 'mail_deliveries',
    retrying: "state = 'pending' AND attempts > 0",
    untried: "state = 'pending' AND attempts = 0",
    failedAt: 'last_attempt_at',
  });
}

function due(deps: Deps, limit: number): DeliveryRow[] {
  if (limit <= 0) return [];
  const ids = deps.sqlite
    .query<{ id: number }, [number, number]>(
      `SELECT id FROM mail_deliveries WHERE state = 'pending' AND next_attempt_at <= ?
       ORDER BY next_attempt_at, id LIMIT ?`,
    )
    .all(deps.clock.now(), limit + deps.mail.inFlight.size)
    .map((r) => r.id)
    .filter((id) => !deps.mail.inFlight.has(id))
    .slice(0, limit);
  return ids.length === 0 ? [] : deps.db.select().from(mailDeliveries).where(inArray(mailDeliveries.id, ids)).all();
}

/** Why the settings cannot send, or null when they can. */
function settingsProblem(smtp: ReturnType<typeof getSettingGroup<'smtp'>>): string | null {
  if (!smtp?.host) return 'no mail server is set (settings smtp.host)';
  if (!smtp.from) return 'no sender address is set (settings smtp.from)';
  return null;
}

/** The server's or network's reason, one line, without anything the settings hold as a secret. */
function reasonOf(err: unknown, password: string | null | undefined): string {
  let text = err instanceof Error ? err.message : String(err);
  if (password) text = text.replaceAll(password, '***');
  return text.replace(/\s+/g, ' ').trim().slice(0, 500) || 'unknown error';
}

function record(deps: Deps, row: DeliveryRow, error: string | null): void {
  followWallClock(deps);
  const now = deps.clock.now();
  const attempts = row.attempts + 1;
  transact(deps, () => {
    if (error === null) {
      updateRow(deps, 'mail', mailDeliveries, mailDeliveries.id, row.id, {
        state: 'sent',
        attempts,
        lastAttemptAt: now,
        nextAttemptAt: null,
        sentAt: now,
        lastError: null,
        updatedAt: now,
      });
      return;
    }
    const delay = RETRY_DELAYS_MS[attempts - 1];
    const final = delay === undefined;
    updateRow(deps, 'mail', mailDeliveries, mailDeliveries.id, row.id, {
      state: final ? 'failed' : 'pending',
      attempts,
      lastAttemptAt: now,
      nextAttemptAt: final ? null : now + delay,
      lastError: error,
      updatedAt: now,
    });
    if (!final) return;
    const text = `mail to ${row.recipient} ("${row.subject}") could not be sent after ${attempts} attempts: ${error}`;
    writePlatformLog(deps, { category: 'system', key: 'mail.failed', value: text, severity: 'error' });
    raiseNotification(deps, {
      key: 'mail-failed',
      title: 'E-mail could not be sent',
      message: `${text}. Check the mail settings (smtp).`,
      severity: 'warning',
      source: { type: 'system' },
      subsystemId: null,
      roleIds: roleIdsHolding(deps, 'settings:write'),
      actions: [{ id: 'clear', label: 'Clear', type: 'clear', clears: true }],
      expiresAt: null,
    });
  });
}

async function attempt(deps: Deps, row: DeliveryRow): Promise<void> {
  const smtp = getSettingGroup(deps, 'smtp');
  const problem = settingsProblem(smtp);
  let error: string | null = problem;
  if (smtp && problem === null) {
    try {
      await sendOverSmtp(smtp, { to: row.recipient, subject: row.subject, text: row.body }, smtp.from ?? '');
    } catch (err) {
      error = reasonOf(err, smtp.password);
      deps.log.warn({ deliveryId: row.id, attempt: row.attempts + 1, error }, 'mail attempt failed');
    }
  }
  try {
    record(deps, row, error);
  } catch (err) {
    // Unrecorded (a full disk): the delivery stays due and goes out again later.
    deps.log.error({ err, deliveryId: row.id }, 'mail attempt could not be recorded');
  }
}

/** Starts an attempt for every due delivery (within the cap); resolves when those attempts are recorded. */
export async function runDueMail(deps: Deps): Promise<void> {
  const state = deps.mail;
  if (state.stopped) return;
  followWallClock(deps);
  const started: Promise<void>[] = [];
  for (const row of due(deps, MAX_IN_FLIGHT - state.inFlight.size)) {
    state.inFlight.add(row.id);
    const run = attempt(deps, row).finally(() => {
      state.inFlight.delete(row.id);
      state.running.delete(run);
      kickMail(deps);
    });
    state.running.add(run);
    started.push(run);
  }
  await Promise.all(started);
}

/** Looks for due mail on the next turn of the event loop (only while the dispatcher runs on its own). */
export function kickMail(deps: Deps): void {
  const state = deps.mail;
  if (!state.automatic || state.stopped || state.kickScheduled) return;
  state.kickScheduled = true;
  setImmediate(() => {
    state.kickScheduled = false;
    runDueMail(deps).catch((err) => deps.log.error({ err }, 'mail dispatch failed'));
  });
}

export function startMailDispatcher(deps: Deps): void {
  deps.mail.automatic = true;
  deps.mail.stopped = false;
  kickMail(deps);
}

/** No new attempt starts; running ones get `graceMs`, else they stay due for the next start. */
export async function stopMailDispatcher(deps: Deps, graceMs: number): Promise<void> {
  deps.mail.stopped = true;
  deps.mail.automatic = false;
  const running = [...deps.mail.running];
  if (running.length === 0) return;
  let timer: ReturnType<typeof setTimeout> | undefined;
  await Promise.race([
    Promise.allSettled(running),
    new Promise<void>((resolve) => {
      timer = setTimeout(resolve, graceMs);
    }),
  ]);
  clearTimeout(timer);
}
