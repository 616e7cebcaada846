/** A runner over a hand-built snapshot with a fake push connection, for the runner's tests. */
import { makeTestApp, type TestApp } from '../../../../tests/helpers/app';
import type { PushConnection } from '../../../rpc/hub';
import { snapshot } from '../engine/test-support';
import type { EngineItem, ScheduleSnapshot } from '../engine/types';
import { installScheduleRunner, runScheduleTick } from './runner';
import { listRuns } from './runs';

/** A push line as the runner sends it (JSON-RPC). */
export type PushLine = { method: string; params: Record<string, unknown> };

/**
 * A push connection that keeps every line it is sent, subscribed to `targets`; `take()` empties it.
 * Each test formats the lines it takes as its assertions read best.
 */
export function pushRecorder(t: TestApp, targets: string[]) {
  const lines: PushLine[] = [];
  const connection: PushConnection = { send: (line) => lines.push(JSON.parse(line)) > 0 };
  t.deps.push.add(connection);
  t.deps.push.subscribe(connection, targets);
  return { connection, lines, take: () => lines.splice(0) };
}

export interface Harness {
  t: TestApp;
  lines: PushLine[];
  set(items: EngineItem[], over?: Partial<ScheduleSnapshot>): void;
  tick(ms?: number): void;
  sent(): string[];
  connection: PushConnection;
}

export function harness(start: string, items: EngineItem[] = [], over: Partial<ScheduleSnapshot> = {}): Harness {
  const t = makeTestApp({ start });
  let snap = snapshot({ items, ...over });
  let version = 100;
  const { lines, connection } = pushRecorder(t, ['media-1', 'show-1']);
  installScheduleRunner(t.deps, () => snap);
  return {
    t,
    lines,
    connection,
    set(next, more = {}) {
      version += 1;
      snap = snapshot({ ...over, items: next, version, ...more });
    },
    tick(ms = 0) {
      if (ms > 0) t.clock.advance(ms);
      runScheduleTick(t.deps);
    },
    sent() {
      return lines
        .splice(0)
        .map(
          (l) =>
            `${l.method.slice(14)} ${l.params.itemType}#${l.params.itemId} ${String(l.params.startTime).slice(11, 19)}-${String(l.params.endTime).slice(11, 19)}`,
        );
    },
  };
}

export const runs = (t: TestApp) =>
  listRuns(t.deps, {})
    .result.items.map((r) => `${r.status} ${r.entryId} ${r.scheduledStart.slice(11, 19)} ${r.deliveredTo.join(',')}`)
    .reverse();

export const MIN = 60_000;
