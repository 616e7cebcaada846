/**
 * The backup thread (thread.ts): packs, verifies and unpacks archives, so compressing, encrypting and
 * hashing gigabytes never holds up the request thread. One task per thread; it answers progress as
 * it goes and then the result or the error. The compiled executable carries it as an entrypoint of
 * its own (build/compile.ts). It runs at nice 19 (thread-priority.ts): while value ingest keeps the
 * cores busy the backup takes what they leave, and on an idle appliance it runs at full speed (its
 * disk writes are paced separately, archive/io.ts). Measured beside ingest (bench/backup.ts, before
 * the pacing): nice 0 kept 66 % of ingest, nice 10 72 %, nice 19 78 %.
 */
import { niceThisThread } from '../../thread-priority';
import { runTask, type TaskAnswer, type TaskRequest } from './task';

/** How far below the request thread the backup thread runs (CFS weight 15 against 1024). */
export const BACKUP_NICE = 19;
niceThisThread(BACKUP_NICE);

declare const self: Worker;

self.onmessage = (event: MessageEvent<TaskRequest>) => {
  runTask(event.data, (fraction) => postMessage({ progress: fraction } satisfies TaskAnswer)).then(
    (result) => postMessage({ result } satisfies TaskAnswer),
    (err: unknown) => postMessage({ error: err instanceof Error ? err.message : String(err) } satisfies TaskAnswer),
  );
};

postMessage({ ready: true } satisfies TaskAnswer);
