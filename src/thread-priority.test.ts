import { describe, expect, it } from 'bun:test';
import { threadNice } from './thread-priority';

describe('niceThisThread', () => {
  it.skipIf(process.platform !== 'linux')('lowers the calling thread only', async () => {
    const main = threadNice();
    const worker = new Worker(new URL('../tests/helpers/nice-worker.ts', import.meta.url).href);
    const answer = await new Promise<{ before: number; applied: boolean; after: number }>((resolve) => {
      worker.onmessage = (event) => resolve(event.data);
      worker.postMessage(19);
    });
    worker.terminate();
    // The lowest priority, which a thread may always give itself.
    expect(answer).toEqual({ before: main ?? 0, applied: true, after: 19 });
    expect(threadNice()).toBe(main);
  });
});
