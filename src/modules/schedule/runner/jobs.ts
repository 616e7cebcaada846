/**
 * What the schedule runs on timers (the daemon installs it; tests call runScheduleTick on the fake clock):
 * the recovery of missed runs, then one timer re-armed to the next segment boundary (at most a
 * minute ahead, so the persisted progress and a stepped wall clock are caught up), and the daily
 * 90-day pruning of run records.
 */
import type { Deps } from '../../../deps';
import type { ModuleJobs } from '../../../jobs/scheduler';
import { nextScheduleBoundary, recoverMissedRuns, runnerState, runScheduleTick } from './runner';
import { pruneRuns } from './runs';

const MAX_SLEEP_MS = 60_000;
const REPLAN_GAP_MS = 200;

function arm(deps: Deps): void {
  const state = runnerState(deps);
  if (!state?.armed) return;
  if (state.timer) clearTimeout(state.timer);
  const now = deps.clock.now();
  const next = nextScheduleBoundary(deps);
  const delay = Math.max(0, Math.min(MAX_SLEEP_MS, next === null ? MAX_SLEEP_MS : next - now));
  state.timer = setTimeout(() => {
    tickSafely(deps);
    arm(deps);
  }, delay);
}

/**
 * Re-plans after a schedule change (rule 14) and re-arms the timer to the new next boundary. In the
 * daemon a burst of writes (an import of many items) coalesces into one re-plan per REPLAN_GAP_MS,
 * so each write does not rebuild and re-resolve the whole schedule; tests re-plan on every change.
 */
export function replanSchedule(deps: Deps): void {
  const state = runnerState(deps);
  if (!state) return;
  if (!state.armed) {
    runScheduleTick(deps);
    return;
  }
  if (state.replanTimer) return;
  const since = deps.clock.monotonic() - state.lastReplan;
  if (since >= REPLAN_GAP_MS) {
    state.lastReplan = deps.clock.monotonic();
    tickSafely(deps);
    arm(deps);
    return;
  }
  state.replanTimer = setTimeout(() => {
    state.replanTimer = null;
    state.lastReplan = deps.clock.monotonic();
    tickSafely(deps);
    arm(deps);
  }, REPLAN_GAP_MS - since);
}

function tickSafely(deps: Deps): void {
  try {
    runScheduleTick(deps);
  } catch (err) {
    deps.log.error({ err }, 'schedule tick failed');
  }
}

/**
 * The runner's boundary timer (a plain timeout re-armed to the next segment boundary: no cron
 * pattern says "at the next boundary"), started after recovering missed runs; and the daily prune.
 */
export function scheduleJobs(deps: Deps): ModuleJobs {
  return {
    start: () => {
      const state = runnerState(deps);
      if (!state) return;
      const missed = recoverMissedRuns(deps);
      if (missed > 0) deps.log.warn({ missed }, 'schedule runs missed while the daemon was down');
      state.armed = true;
      arm(deps);
    },
    jobs: [{ name: 'schedule.runs-prune', pattern: '0 23 4 * * *', run: () => void pruneRuns(deps) }],
    stop: () => {
      const state = runnerState(deps);
      if (!state) return;
      state.armed = false;
      if (state.timer) clearTimeout(state.timer);
      if (state.replanTimer) clearTimeout(state.replanTimer);
      state.timer = null;
      state.replanTimer = null;
    },
  };
}
