/**
 * The croner wrapper and the one shape of timed work. A module's `jobs.ts` exports
 * `<module>Jobs(deps): ModuleJobs`: cron jobs named `<module>.<what>` (kebab-case), and, for work
 * with a rhythm of its own (the webhook dispatcher, the schedule runner's boundary timer), `start`
 * and `stop`. The daemon installs every module's set in one list (boot.ts `daemonJobs`), in start
 * order, and `stopAll` stops them in reverse. Each run is guarded: a failing job logs and keeps its
 * schedule, and a slow one never overlaps itself.
 */
import { Cron } from 'croner';
import type { Logger } from '../log';

export interface Job {
  /** `<module>.<what>`: the name in logs and for `runNow`. */
  name: string;
  /** A cron pattern (6 fields, seconds first). */
  pattern: string;
  run: () => void | Promise<void>;
}

/** What a module runs on timers. */
export interface ModuleJobs {
  jobs: Job[];
  /** Starts work that keeps its own rhythm; runs before the jobs are scheduled. */
  start?: () => void;
  /** Stops that work (awaited at shutdown, after the cron jobs stopped). */
  stop?: () => void | Promise<void>;
}

export interface Scheduler {
  /** Starts a module's work and schedules its jobs. A job replaces one of the same name. */
  install(set: ModuleJobs): void;
  /** Runs a job now, as its schedule would (tests and "run now" actions). */
  runNow(name: string): Promise<void>;
  names(): string[];
  /** Stops every job, then every installed set's own work, the last installed first. */
  stopAll(): Promise<void>;
  /**
   * Holds everything timed (a restore's maintenance, §17 rule 4.4): the jobs stop firing and each
   * set's own work stops, the last installed first; `resume` starts that work again, in install
   * order, and lets the jobs fire.
   */
  pause(): Promise<void>;
  resume(): void;
}

export function createScheduler(log: Logger): Scheduler {
  const jobs = new Map<string, { cron: Cron; run: () => Promise<void> }>();
  const stops: Array<() => void | Promise<void>> = [];
  const sets: ModuleJobs[] = [];
  let paused = false;
  const add = (job: Job) => {
    jobs.get(job.name)?.cron.stop();
    const run = async () => {
      try {
        await job.run();
      } catch (err) {
        log.error({ err, job: job.name }, 'job failed');
      }
    };
    jobs.set(job.name, {
      cron: new Cron(job.pattern, { protect: true, name: `pms:${job.name}:${Date.now()}` }, run),
      run,
    });
  };
  return {
    install(set) {
      set.start?.();
      sets.push(set);
      if (set.stop) stops.push(set.stop);
      for (const job of set.jobs) add(job);
    },
    async runNow(name) {
      await jobs.get(name)?.run();
    },
    names: () => [...jobs.keys()],
    async pause() {
      if (paused) return;
      paused = true;
      for (const job of jobs.values()) job.cron.pause();
      for (const set of [...sets].reverse()) {
        try {
          await set.stop?.();
        } catch (err) {
          log.error({ err }, 'pausing a job set failed');
        }
      }
    },
    resume() {
      if (!paused) return;
      paused = false;
      for (const set of sets) {
        try {
          set.start?.();
        } catch (err) {
          log.error({ err }, 'resuming a job set failed');
        }
      }
      for (const job of jobs.values()) job.cron.resume();
    },
    async stopAll() {
      sets.length = 0;
      for (const job of jobs.values()) job.cron.stop();
      jobs.clear();
      for (const stop of stops.splice(0).reverse()) {
        try {
          await stop();
        } catch (err) {
          log.error({ err }, 'stopping a job set failed');
        }
      }
    },
  };
}
