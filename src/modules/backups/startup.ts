/**
 * A restore at start-up (§17 rules 4.6, 4.7), around the daemon's assembly (boot.ts `openDeps`): a
 * decided swap is carried out before the database opens (swap.ts); the restored data is opened; if
 * that throws, the old data is put back and opened instead. Once the restored data is open, the
 * restore is finished there: the `backups` bucket rescanned (archives newer than the restored data
 * listed again, the restored backup's own record completed from its sidecar), every session ended
 * (everyone signs in again), objects whose content is missing back to `created` with a notification
 * of their count, the restore's job recorded on the backup, a `system` log entry and
 * `backup.restored`; then `previous/` goes. Every subsystem's grace period starts afresh and missed
 * schedule runs follow §11.6 rule 15 because this is a start. The old data's daemon records a restore
 * that was put back (`backup.restore_failed`).
 */
import { eq } from 'drizzle-orm';
import type { Config } from '../../config';
import { writePlatformLog } from '../../core/platform-log';
import { randomId } from '../../crypto';
import { backups, sessions } from '../../db/schema';
import type { Deps } from '../../deps';
import type { Logger } from '../../log';
import { emit, transact } from '../../realtime/emit';
import { raiseNotification } from '../notifications/show';
import { forgetMissingContent } from '../objects/service';
import { backupEventData } from './mapper';
import { rescanBackups } from './rescan';
import { setBackup } from './service';
import { abandonRestore, confirmRestore, type RestorePlan, settleRestore, takeOutcome } from './swap';

function recordJob(deps: Deps, object: string, startedAt: number, error: string | null): void {
  const row = deps.db.select().from(backups).where(eq(backups.object, object)).get();
  if (!row) return;
  const job = {
    id: randomId(),
    type: 'restore' as const,
    state: error === null ? ('succeeded' as const) : ('failed' as const),
    progress: error === null ? 100 : 0,
    startedAt,
    finishedAt: deps.clock.now(),
    error,
  };
  const stored = setBackup(deps, row.id, { job });
  emit(deps, error === null ? 'backup.restored' : 'backup.restore_failed', backupEventData(stored));
}

/** The restore's last steps, on the restored data. */
export function finishRestore(deps: Deps, plan: RestorePlan): void {
  const scan = rescanBackups(deps, { afterRestore: true });
  const missing = forgetMissingContent(deps);
  transact(deps, () => {
    deps.db.delete(sessions).run();
    recordJob(deps, plan.object, plan.startedAt, null);
    if (missing > 0) {
      raiseNotification(deps, {
        key: 'backup-restore-media',
        title: `${missing} media object${missing === 1 ? ' has' : 's have'} no content after the restore`,
        message:
          'Their files were neither in the archive nor on disk; they are back to "created". Upload their content again.',
        severity: 'warning',
      });
    }
    writePlatformLog(deps, {
      category: 'system',
      key: 'backup.restored',
      value: `backup ${plan.object} restored (asked by ${plan.requestedBy}; license ${plan.license}${
        plan.includeMedia ? '' : '; media not restored'
      }; ${scan.listed} archive(s) listed again, ${missing} object(s) without content); everyone signs in again`,
      severity: 'warning',
    });
  });
}

/** The old data's record of a restore that was put back. */
function recordOutcome(deps: Deps): void {
  const outcome = takeOutcome(deps.config.dataDir);
  if (!outcome) return;
  transact(deps, () => {
    recordJob(deps, outcome.object, outcome.startedAt, `the restored data failed to start: ${outcome.error}`);
    writePlatformLog(deps, {
      category: 'system',
      key: 'backup.restore-failed',
      value: `the restore of ${outcome.object} (asked by ${outcome.requestedBy}) was put back: the restored data failed to start (${outcome.error}); the previous data is in use`,
      severity: 'error',
    });
  });
}

/**
 * Opens the daemon (`open`: boot.ts's assembly) with a restore's completion around it. A restore the
 * restored data cannot start is put back and the old data opened.
 */
export function openRestoring<R extends { deps: Deps }>(
  config: Pick<Config, 'dataDir'>,
  log: Logger,
  open: () => R,
): R {
  const plan = settleRestore(config.dataDir);
  if (plan === null) {
    const opened = open();
    recordOutcome(opened.deps);
    return opened;
  }
  let opened: R | null = null;
  try {
    opened = open();
    finishRestore(opened.deps, plan);
  } catch (err) {
    log.error({ err, archive: plan.object }, 'the restored data failed to start; the previous data is put back');
    try {
      opened?.deps.sqlite.close();
    } catch {
      // Closing a database that failed to start is best effort.
    }
    abandonRestore(config.dataDir, plan, (err as Error).message || String(err));
    const back = open();
    recordOutcome(back.deps);
    return back;
  }
  confirmRestore(config.dataDir, plan);
  log.warn({ archive: plan.object }, 'restore finished: serving the restored data');
  return opened;
}
