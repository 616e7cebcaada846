/**
 * The checkpoint thread (db/checkpointer.ts): its own connection to the database, a PASSIVE
 * checkpoint each time it is asked, and the answer of what it did. It imports nothing but
 * bun:sqlite, and the compiled executable carries it as a second entrypoint (build/compile.ts).
 */
import { Database } from 'bun:sqlite';

export type CheckpointRequest = { open: string } | { checkpoint: true } | { close: true };
export type CheckpointAnswer =
  | { opened: true }
  | { closed: true }
  | { log: number; checkpointed: number; busy: number; ms: number }
  | { error: string };

declare const self: Worker;
let db: Database | null = null;

self.onmessage = (event: MessageEvent<CheckpointRequest>) => {
  const request = event.data;
  try {
    if ('open' in request) {
      db = new Database(request.open);
      postMessage({ opened: true } satisfies CheckpointAnswer);
    } else if ('close' in request) {
      db?.close();
      db = null;
      postMessage({ closed: true } satisfies CheckpointAnswer);
    } else {
      if (!db) throw new Error('the checkpoint connection is not open');
      const started = performance.now();
      const row = db
        .query<{ busy: number; log: number; checkpointed: number }, []>('PRAGMA wal_checkpoint(PASSIVE)')
        .get();
      postMessage({
        log: row?.log ?? 0,
        checkpointed: row?.checkpointed ?? 0,
        busy: row?.busy ?? 0,
        ms: performance.now() - started,
      } satisfies CheckpointAnswer);
    }
  } catch (err) {
    postMessage({ error: err instanceof Error ? err.message : String(err) } satisfies CheckpointAnswer);
  }
};
