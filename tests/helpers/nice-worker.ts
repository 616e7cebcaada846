/** A thread for src/thread-priority.test.ts: sets its own nice value and reports it, and the main thread's untouched. */
import { niceThisThread, threadNice } from '../../src/thread-priority';

declare const self: Worker;

self.onmessage = (event: MessageEvent<number>) => {
  const before = threadNice();
  const applied = niceThisThread(event.data);
  postMessage({ before, applied, after: threadNice() });
};
