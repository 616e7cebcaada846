/**
 * The croner wrapper and the one shape of timed work. A module's `jobs.ts` exports
 * `<module>Jobs(deps): ModuleJobs`: cron jobs named `<module>.<what>` (kebab-case), and, for work
 * with a rhythm of its own (the webhook dispatcher, the schedule runner's boundary timer), `start`
 * and `stop`. The daemon installs every module's set in one list (boot.ts `daemonJobs`), in start
 * order, and `stopAll` stops them in reverse. Each run is guarded: a failing job logs and keeps its
 * schedule, and a slow one never overlaps itself (a tick that finds it still running skips it).
 *
 * Jobs with the same pattern share one timer, which starts them in install order at each tick: ten
 * jobs run every second, and a croner timer of their own cost the idle daemon ten wake-ups, ten
 * next-run computations (croner's dates) and their garbage every second, where one does (measured:
 * bench/RESULTS.md, "Hot paths, session 22").
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

/** What fires a pattern's jobs: a croner timer in the daemon, a hand-driven one in tests. */
export interface Timer {
  stop(): void;
  pause(): void;
  resume(): void;
}

/** Makes the timer that calls `tick` at each time `pattern` names. */
export type TimerFactory = (pattern: string, tick: () => void) => Timer;

const cronTimer: TimerFactory = (pattern, tick) => new Cron(pattern, tick);

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

export function createScheduler(log: Logger, timer: TimerFactory = cronTimer): Scheduler {
  interface Entry {
    pattern: string;
    run: () => Promise<void>;
    running: boolean;
    /** Clears `running` (made once per job: a tick makes no garbage of its own). */
    done: () => void;
  }
  const jobs = new Map<string, Entry>();
  /** One timer per pattern, with the jobs it starts in install order. */
  const timers = new Map<string, { timer: Timer; entries: Entry[] }>();
  const stops: Array<() => void | Promise<void>> = [];
  const sets: ModuleJobs[] = [];
  let paused = false;
  const tick = (entries: Entry[]) => {
    for (let i = 0; i < entries.length; i++) {
      const entry = entries[i];
      if (!entry || entry.running) continue;
      entry.running = true;
      void entry.run().then(entry.done);
    }
  };
  const remove = (name: string) => {
    const old = jobs.get(name);
    if (!old) return;
    jobs.delete(name);
    const group = timers.get(old.pattern);
    if (!group) return;
    group.entries.splice(group.entries.indexOf(old), 1);
    if (group.entries.length > 0) return;
    group.timer.stop();
    timers.delete(old.pattern);
  };
  const add = (job: Job) => {
    remove(job.name);
    const entry: Entry = {
      pattern: job.pattern,
      running: false,
      run: async () => {
        try {
          await job.run();
        } catch (err) {
          log.error({ err, job: job.name }, 'job failed');
        }
      },
      done: () => {
        entry.running = false;
      },
    };
    jobs.set(job.name, entry);
    const group = timers.get(job.pattern);
    if (group) {
      group.entries.push(entry);
      return;
    }
    const entries = [entry];
    const made = timer(job.pattern, () => tick(entries));
    if (paused) made.pause();
    timers.set(job.pattern, { timer: made, entries });
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
      for (const { timer } of timers.values()) timer.pause();
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
      for (const { timer } of timers.values()) timer.resume();
    },
    async stopAll() {
      sets.length = 0;
      for (const { timer } of timers.values()) timer.stop();
      timers.clear();
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
