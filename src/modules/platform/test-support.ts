/**
 * Host-action test set-up: a fake `systemd` executor that records what it was asked, and the
 * daemon's real orderly stop (src/daemon.ts) over the test app, with requests in flight, the push
 * channel and the waits under the test's control. Nothing here powers anything off.
 */

import type { TestApp } from '../../../tests/helpers/app';
import { RunningDaemon } from '../../daemon';
import type { HostAction, HostExecutor } from './state';

export interface FakeExecutor extends HostExecutor {
  calls: string[];
  /** Makes `check` (asked before anything stops) or `run` (after the database closed) throw. */
  refuse: { check?: string; run?: string };
  /** Called inside `run`, before it answers: what the test wants to see at that moment. */
  onRun?: (action: HostAction) => void;
}

/** `calls` may be an array the test shares with its other observers, to see the order of everything. */
export function fakeSystemdExecutor(calls: string[] = []): FakeExecutor {
  const executor: FakeExecutor = {
    name: 'systemd',
    dryRun: false,
    calls,
    refuse: {},
    async check(action) {
      executor.calls.push(`check ${action}`);
      if (executor.refuse.check) throw new Error(executor.refuse.check);
    },
    async run(action) {
      executor.calls.push(`run ${action}`);
      executor.onRun?.(action);
      if (executor.refuse.run) throw new Error(executor.refuse.run);
    },
  };
  return executor;
}

export interface FakeDaemon {
  daemon: RunningDaemon;
  /** Exit codes asked for. */
  exits: number[];
  /** Push channel closings. */
  pushStops: number;
  /** Requests the test pretends are in flight (added to `inFlight`). */
  held: number;
  /** Runs during the stop's wait for requests in flight (the gate is closed then). */
  whileDraining?: () => Promise<void>;
}

export interface FakeDaemonOptions {
  /** What a real server reports (`pendingRequests`); `held` is added to it. */
  inFlight?: () => number;
  /** Where the push closing and the wait until `effectiveAt` are noted, in order. */
  order?: string[];
}

/**
 * Installs the executor and the daemon's stop on `t`; the sequence's wait until `effectiveAt` moves
 * the fake clock.
 */
export function fakeDaemon(t: TestApp, executor: HostExecutor, options: FakeDaemonOptions = {}): FakeDaemon {
  const { inFlight = () => 0, order = [] } = options;
  const fake: FakeDaemon = {
    exits: [],
    pushStops: 0,
    held: 0,
    daemon: new RunningDaemon({
      deps: t.deps,
      inFlight: () => fake.held + inFlight(),
      stopListening: () => {
        throw new Error('a host action keeps listening');
      },
      stopPush: () => {
        fake.pushStops += 1;
        order.push('push closed');
      },
      sleep: async () => {
        const during = fake.whileDraining;
        fake.whileDraining = undefined;
        if (during) await during();
        await Bun.sleep(1);
      },
    }),
  };
  t.deps.host.executor = executor;
  t.deps.host.daemon = {
    stop: (why) => fake.daemon.stop({ why, keepListening: true }),
    exit: (code) => fake.exits.push(code),
  };
  t.deps.host.sleep = async (ms) => {
    order.push(`wait ${ms} ms for effectiveAt`);
    t.clock.advance(ms);
  };
  return fake;
}
