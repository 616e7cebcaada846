/**
 * Runs a backup task (task.ts) on a thread of its own (worker.ts), one thread per task, reporting its
 * progress; where no thread can be started the task runs here and the log says so. The thread is
 * `smol` (a small heap, collected more often): it streams, it holds little.
 */
import type { Deps } from '../../deps';
import type { TaskAnswer, TaskRequest, TaskResult } from './task';

export async function inThread(
  deps: Deps,
  task: TaskRequest,
  progress: (fraction: number) => void,
): Promise<TaskResult> {
  const url = deps.backups.workerUrl;
  let worker: Worker | null = null;
  if (url !== null) {
    try {
      worker = new Worker(url, { smol: true });
    } catch (err) {
      deps.log.warn({ err }, 'the backup thread cannot start; the work runs on the request thread');
    }
  }
  // The archive code (tar, gzip, argon2id) is loaded here only when no thread could start: the
  // request thread does not carry it in memory otherwise.
  if (worker === null) return (await import('./task')).runTask(task, progress);
  const thread = worker;
  try {
    return await new Promise<TaskResult>((resolve, reject) => {
      thread.onmessage = (event: MessageEvent<TaskAnswer>) => {
        const answer = event.data;
        if ('ready' in answer) thread.postMessage(task);
        else if ('progress' in answer) progress(answer.progress);
        else if ('result' in answer) resolve(answer.result);
        else reject(new Error(answer.error));
      };
      thread.onerror = (event) => reject(new Error(`the backup thread failed: ${event.message}`));
    });
  } finally {
    thread.terminate();
  }
}
