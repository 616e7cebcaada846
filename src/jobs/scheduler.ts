/**
 * The croner wrapper: named jobs on cron patterns, each run guarded so a failing job logs and keeps
 * its schedule and a slow one never overlaps itself; `stopAll` at shutdown.
 */
import { Cron } from 'croner';
import type { Logger } from '../log';

export interface Scheduler {
  /** Runs `run` on the cron pattern (6 fields with seconds allowed). Replaces a job of the same name. */
  add(name: string, pattern: string, run: () => void | Promise<void>): void;
  /** Runs a job now, as its schedule would (tests and "run now" actions). */
  runNow(name: string): Promise<void>;
  names(): string[];
  stopAll(): void;
}

export function createScheduler(log: Logger): Scheduler {
  const jobs = new Map<string, { cron: Cron; run: () => Promise<void> }>();
  return {
    add(name, pattern, fn) {
      jobs.get(name)?.cron.stop();
      const run = async () => {
        try {
          await fn();
        } catch (err) {
          log.error({ err, job: name }, 'job failed');
        }
      };
      jobs.set(name, { cron: new Cron(pattern, { protect: true, name: `pms:${name}:${Date.now()}` }, run), run });
    },
    async runNow(name) {
      await jobs.get(name)?.run();
    },
    names: () => [...jobs.keys()],
    stopAll() {
      for (const job of jobs.values()) job.cron.stop();
      jobs.clear();
    },
  };
}
