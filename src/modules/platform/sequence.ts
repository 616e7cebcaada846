/**
 * What follows an accepted host action (§20 rules 2–4), in order, once its 202 has gone:
 *
 * 1. the audit entry, a `system` log entry and `platform.shutdown`/`platform.reboot`, in one unit: the
 *    bus tells WebSocket clients after the commit, and the webhook deliveries are queued in the same
 *    transaction (the dispatcher may get them out before it stops below, with its 2-s grace; what it
 *    does not goes out after the next start). A `dry-run` executor stops here: the daemon keeps serving.
 * 2. the executor is asked whether the host would act (logind and polkit); a refusal stops here too.
 * 3. the gate closes: new requests get 503 `unavailable` with `Retry-After: 300` (http/maintenance.ts).
 * 4. the daemon's orderly stop (src/daemon.ts, the same one SIGTERM runs): requests in flight get up to
 *    10 s, the scheduler stops, push and WebSocket connections close, the database is checkpointed and
 *    closed.
 * 5. at `effectiveAt` at the earliest, the executor runs; the host then stops pmsd with SIGTERM.
 *
 * Rule 4, the executor fails: before the database closed (2, 3) pmsd leaves the gate, logs the error
 * and shows a notification, and keeps serving; nothing else had stopped. After it closed (5) the
 * daemon's parts cannot be started again in this process, so pmsd writes the failure to
 * `<dataDir>/host-action-failed.json` (flushed and renamed) and exits 75: systemd starts it again
 * (`Restart=on-failure`) and the start reports the failure as the log entry and notification
 * (`reportFailedHostAction`).
 */
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { iso } from '../../clock';
import { writeAuditLog, writePlatformLog } from '../../core/platform-log';
import type { Deps } from '../../deps';
import { writeFileDurably } from '../../files';
import { enterMaintenance, leaveMaintenance } from '../../http/maintenance';
import { emit, transact } from '../../realtime/emit';
import { raiseNotification } from '../notifications/show';
import type { AcceptedHostAction, HostAction } from './state';

/** `Retry-After` of the 503s while the appliance goes down. */
export const SHUTDOWN_RETRY_AFTER_S = 300;
/** The exit code after an executor failed with the database closed: systemd starts pmsd again. */
export const EXIT_RESTART_AFTER_FAILURE = 75;
/** Where that failure waits for the next start. */
export const FAILURE_FILE = 'host-action-failed.json';

const VERB: Record<HostAction, { event: string; noun: string; title: string }> = {
  'system/shutdown': { event: 'platform.shutdown', noun: 'shutdown', title: 'The appliance did not shut down' },
  'system/reboot': { event: 'platform.reboot', noun: 'restart', title: 'The appliance did not restart' },
};

/** The notification of rule 4: one key, so a second failure raises the same one again. */
export const FAILURE_NOTIFICATION_KEY = 'platform.host-action-failed';

/** Step 1: audit, system log entry and the event, committed together. */
function announce(deps: Deps, a: AcceptedHostAction): void {
  const { event, noun } = VERB[a.action];
  const dryRun = a.executor.dryRun;
  transact(deps, () => {
    writeAuditLog(deps, a.principal, {
      key: event,
      value: `${a.action} accepted (request ${a.requestId}, executor ${a.executor.name}${dryRun ? ', dry run' : ''})`,
    });
    writePlatformLog(deps, {
      category: 'system',
      key: `system.${noun}`,
      severity: dryRun ? 'info' : 'warning',
      value: dryRun
        ? `${noun} requested by ${a.by} (dry run: nothing stops, the appliance keeps running)`
        : `${noun} requested by ${a.by}: pmsd stops now and the host acts at ${iso(a.effectiveAt)}`,
    });
    emit(deps, event, { requestId: a.requestId, by: a.by, dryRun, effectiveAt: iso(a.effectiveAt) });
  });
}

function reason(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** Rule 4 with the database open: the error as a log entry and a notification. */
function reportFailure(deps: Deps, a: Pick<AcceptedHostAction, 'action' | 'by'>, why: string, after: string): void {
  const { noun, title } = VERB[a.action];
  const message = `The ${noun} requested by ${a.by} was not carried out: ${why}. ${after}`;
  transact(deps, () => {
    writePlatformLog(deps, { category: 'system', key: `system.${noun}.failed`, severity: 'error', value: message });
    raiseNotification(deps, { key: FAILURE_NOTIFICATION_KEY, title, message, severity: 'error' });
  });
}

/** Rule 4 before anything stopped for good: serving again, the failure logged and shown. */
function resume(deps: Deps, a: AcceptedHostAction, err: unknown): void {
  leaveMaintenance(deps, 'shutdown');
  deps.host.acceptedAtMono = null;
  deps.log.error({ err, action: a.action, requestId: a.requestId }, 'host action failed; serving again');
  reportFailure(deps, a, reason(err), 'The appliance keeps running.');
}

interface FailureRecord {
  action: HostAction;
  requestId: string;
  by: string;
  acceptedAt: string;
  error: string;
}

/** Writes the failure for the next start, whole (flushed, renamed, the folder flushed). */
function keepFailure(dataDir: string, record: FailureRecord): void {
  writeFileDurably(join(dataDir, FAILURE_FILE), JSON.stringify(record));
}

/** Rule 4 after the database closed: kept for the next start, then the process ends for systemd to restart. */
function failAfterStop(deps: Deps, a: AcceptedHostAction, err: unknown): void {
  deps.log.error(
    { err, action: a.action, requestId: a.requestId },
    'host action failed after the database closed; exiting for a restart',
  );
  try {
    keepFailure(deps.config.dataDir, {
      action: a.action,
      requestId: a.requestId,
      by: a.by,
      acceptedAt: iso(a.acceptedAt),
      error: reason(err),
    });
  } catch (writeErr) {
    deps.log.error({ err: writeErr }, 'the failure could not be kept for the next start');
  }
  deps.host.daemon?.exit(EXIT_RESTART_AFTER_FAILURE);
}

/** Rule 2 from the log entries on; resolves when the host has the action (or it failed). */
export async function carryOutHostAction(deps: Deps, a: AcceptedHostAction): Promise<void> {
  announce(deps, a);
  if (a.executor.dryRun) return;
  const daemon = deps.host.daemon;
  try {
    if (!daemon) throw new Error('this process runs no daemon to stop');
    await a.executor.check(a.action);
    enterMaintenance(deps, { reason: 'shutdown', retryAfterSeconds: SHUTDOWN_RETRY_AFTER_S });
  } catch (err) {
    resume(deps, a, err);
    return;
  }
  try {
    await daemon.stop(`${a.action} requested by ${a.by}`);
    const early = a.effectiveAt - deps.clock.now();
    if (early > 0) await deps.host.sleep(early);
    await a.executor.run(a.action);
    deps.log.warn({ action: a.action }, 'the host has the action; waiting for it to stop pmsd');
  } catch (err) {
    failAfterStop(deps, a, err);
  }
}

/**
 * At start: a failure kept by an earlier run (see above) becomes its log entry and notification, then
 * the file goes. A file that cannot be read is logged and removed.
 */
export function reportFailedHostAction(deps: Deps): void {
  const path = join(deps.config.dataDir, FAILURE_FILE);
  if (!existsSync(path)) return;
  try {
    const record = JSON.parse(readFileSync(path, 'utf8')) as FailureRecord;
    if (!(record.action in VERB)) throw new Error(`unknown action ${String(record.action)}`);
    reportFailure(
      deps,
      record,
      `${record.error} (asked at ${record.acceptedAt})`,
      'pmsd was restarted and is serving again.',
    );
  } catch (err) {
    deps.log.error({ err, path }, 'a kept host-action failure could not be read');
  }
  rmSync(path, { force: true });
}
