/**
 * The backup thread (thread.ts): packs, verifies and unpacks archives, so compressing, encrypting and
 * hashing gigabytes never holds up the request thread. One task per thread; it answers progress as
 * it goes and then the result or the error. The compiled executable carries it as an entrypoint of
 * its own (build/compile.ts).
 */
import { runTask, type TaskAnswer, type TaskRequest } from './task';

declare const self: Worker;

self.onmessage = (event: MessageEvent<TaskRequest>) => {
  runTask(event.data, (fraction) => postMessage({ progress: fraction } satisfies TaskAnswer)).then(
    (result) => postMessage({ result } satisfies TaskAnswer),
    (err: unknown) => postMessage({ error: err instanceof Error ? err.message : String(err) } satisfies TaskAnswer),
  );
};

postMessage({ ready: true } satisfies TaskAnswer);
