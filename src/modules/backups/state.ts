/**
 * What the backups module keeps per daemon (`deps.backups`): the one job running (§17 rule 2: one
 * backup, verify or restore at a time), where the backup thread's module is, the argon2id costs of
 * new encrypted archives, and how the daemon restarts its services after a restore's swap.
 */
import { KDF, type KdfParams } from './archive/crypt';

export interface RunningJob {
  backupId: number;
  jobId: string;
  type: 'backup' | 'verify' | 'restore';
  /** Settles when the job has finished, whatever its outcome. */
  done: Promise<void>;
}

export class BackupState {
  running: RunningJob | null = null;
  /**
   * The backup thread's module (thread.ts); main sets where the compiled executable carries it,
   * null runs the work on the calling thread.
   */
  workerUrl: string | null = new URL('./worker.ts', import.meta.url).href;
  kdf: KdfParams = KDF;
  /**
   * Called once a restore has committed its swap (restore.ts): stops the daemon's services and starts
   * them again on the restored data, which start-up completes (swap.ts). main sets it; null refuses
   * a restore before anything is touched.
   */
  restart: (() => void) | null = null;
}
