/**
 * The dispatcher (§10 rules 2, 3, 5): takes the writer's outbox rows in as deliveries
 * (realtime/outbox.ts `takeInOutbox`), then picks due deliveries (pending or retrying, `nextAttemptAt` ≤ now)
 * of active webhooks, oldest due first, at most 4 in flight per webhook and 16 overall, and records
 * each outcome. Which deliveries are in flight lives only in memory: a delivery whose attempt was
 * running when the process died was never recorded, so it is still due after a restart and goes out
 * again under the same `webhook-id`. Deliveries of a disabled or inactive webhook are not attempted;
 * they keep their status and are due again the moment it is turned back on (unless the 14-day
 * retention dropped them meanwhile). Retry times follow a step of the wall clock before each look
 * (record.ts `followWallClock`): a wait counts elapsed time.
 *
 * `runDueDeliveries` is the plain work function tests drive on the fake clock; `webhookJobs`
 * (jobs.ts) makes it run on a 1 s timer and right after an event queued deliveries.
 */
import type { Deps } from '../../deps';
import { activeWebhookIds, TAKE_IN_DELIVERIES, takeInOutbox } from '../../realtime/outbox';
import { performAttempt } from './attempt';
import type { DeliveryRow } from './mapper';
import { type AttemptKind, followWallClock, recordAttempt } from './record';
import type { DispatcherState } from './state';
import { webhookStore } from './store';

export const MAX_IN_FLIGHT_PER_WEBHOOK = 4;
export const MAX_IN_FLIGHT = 16;

/** How long a delivery whose attempt could not be recorded waits before it is sent again. */
export const UNRECORDED_HOLD_MS = 5_000;

/** The daemon's dispatcher state (`deps.webhooks`). */
export function dispatcherState(deps: Deps): DispatcherState {
  return deps.webhooks.dispatcher;
}

/** Attempts running now (all, or of one webhook). */
export function inFlightCount(deps: Deps, webhookId?: number): number {
  const state = dispatcherState(deps);
  return webhookId === undefined ? state.total : (state.perWebhook.get(webhookId) ?? 0);
}

interface Candidate {
  id: number;
  webhookId: number;
  nextAttemptAt: number;
}

function dueCandidates(deps: Deps, state: DispatcherState, now: number): Candidate[] {
  const due = deps.sqlite.query<{ id: number; next_attempt_at: number }, [number, number, number]>(
    `SELECT id, next_attempt_at FROM webhook_deliveries
     WHERE webhook_id = ? AND next_attempt_at IS NOT NULL AND next_attempt_at <= ?
     ORDER BY next_attempt_at, id LIMIT ?`,
  );
  const monotonic = deps.clock.monotonic();
  for (const [id, until] of state.heldUntil) if (until <= monotonic) state.heldUntil.delete(id);
  const out: Candidate[] = [];
  for (const webhookId of activeWebhookIds(deps)) {
    const busy = state.perWebhook.get(webhookId) ?? 0;
    const free = MAX_IN_FLIGHT_PER_WEBHOOK - busy;
    if (free <= 0) continue;
    const skipped = busy + state.heldUntil.size;
    const rows = due
      .all(webhookId, now, free + skipped)
      .filter((r) => !state.inFlight.has(r.id) && !state.heldUntil.has(r.id));
    for (const r of rows.slice(0, free)) out.push({ id: r.id, webhookId, nextAttemptAt: r.next_attempt_at });
  }
  return out.sort((a, b) => a.nextAttemptAt - b.nextAttemptAt || a.id - b.id);
}

/** Runs one attempt of a delivery and records it; resolves when recorded. */
async function attempt(deps: Deps, deliveryId: number, kind: AttemptKind): Promise<void> {
  try {
    const store = webhookStore(deps);
    const delivery = store.delivery(deliveryId);
    if (!delivery) return;
    if (kind === 'scheduled' && (delivery.nextAttemptAt === null || delivery.nextAttemptAt > deps.clock.now())) return;
    const hook = store.webhook(delivery.webhookId);
    if (!hook || (kind === 'scheduled' && !hook.active)) return;
    const outcome = await performAttempt(deps, hook, delivery);
    recordAttempt(deps, deliveryId, outcome, kind);
  } catch (err) {
    dispatcherState(deps).heldUntil.set(deliveryId, deps.clock.monotonic() + UNRECORDED_HOLD_MS);
    deps.log.error({ err, deliveryId }, 'webhook delivery attempt failed to run');
  }
}

function track(deps: Deps, state: DispatcherState, delivery: Candidate, counted: boolean): Promise<void> {
  state.inFlight.set(delivery.id, delivery.webhookId);
  if (counted) {
    state.total += 1;
    state.perWebhook.set(delivery.webhookId, (state.perWebhook.get(delivery.webhookId) ?? 0) + 1);
  }
  const run = attempt(deps, delivery.id, counted ? 'scheduled' : 'test').finally(() => {
    state.inFlight.delete(delivery.id);
    state.running.delete(run);
    if (counted) {
      state.total -= 1;
      const left = (state.perWebhook.get(delivery.webhookId) ?? 1) - 1;
      if (left > 0) state.perWebhook.set(delivery.webhookId, left);
      else state.perWebhook.delete(delivery.webhookId);
    }
    if (state.automatic) kickDispatcher(deps);
  });
  state.running.add(run);
  return run;
}

/**
 * Takes the outbox in, then starts attempts for the due deliveries within the caps; the promise
 * settles when the attempts it started were recorded (attempts already running are not waited for).
 * A full look first takes in about `TAKE_IN_DELIVERIES` deliveries from the outbox (a dispatcher
 * running on its own looks again soon while rows remain). A `yielding` look (value writes are
 * congesting the writer) starts at most one attempt and takes in one outbox row only when nothing is
 * due.
 */
export function runDueDeliveries(deps: Deps, yielding = false): Promise<void> {
  const state = dispatcherState(deps);
  if (state.stopped) return Promise.resolve();
  followWallClock(deps);
  const now = deps.clock.now();
  let candidates: Candidate[];
  if (yielding) {
    candidates = dueCandidates(deps, state, now);
    if (candidates.length === 0) {
      takeIn(deps, 1); // one row
      candidates = dueCandidates(deps, state, now);
    }
  } else {
    if (takeIn(deps)) kickDispatcher(deps);
    candidates = dueCandidates(deps, state, now);
  }
  const cap = yielding ? 1 : MAX_IN_FLIGHT;
  const started: Promise<void>[] = [];
  for (const candidate of candidates) {
    if (state.total >= cap) break;
    if ((state.perWebhook.get(candidate.webhookId) ?? 0) >= MAX_IN_FLIGHT_PER_WEBHOOK) continue;
    started.push(track(deps, state, candidate, true));
  }
  return Promise.all(started).then(() => {});
}

/**
 * Takes outbox rows in (realtime/outbox.ts `takeInOutbox`); a failure (a full disk) is logged and
 * leaves them for a later look. True when rows remain.
 */
export function takeIn(deps: Deps, deliveries = TAKE_IN_DELIVERIES): boolean {
  try {
    return takeInOutbox(deps, deliveries);
  } catch (err) {
    deps.log.error({ err }, 'webhook outbox could not be taken in');
    return false;
  }
}

/** One look of a dispatcher running on its own (kicks, the 1 s tick): yielding while writes congest the writer. */
export function look(deps: Deps): Promise<void> {
  return runDueDeliveries(deps, deps.work.congested).catch((err) =>
    deps.log.error({ err }, 'webhook dispatcher failed'),
  );
}

/** Sends one delivery now, outside the caps and whatever its webhook's state (the test route). */
export function sendNow(deps: Deps, delivery: DeliveryRow): Promise<void> {
  const state = dispatcherState(deps);
  return track(deps, state, { id: delivery.id, webhookId: delivery.webhookId, nextAttemptAt: 0 }, false);
}

/** While value writes congest the writer, the dispatcher looks again after this pause. */
export const YIELD_TO_INGEST_MS = 100;

/**
 * Runs the dispatcher soon (coalesced), when it runs on its own. Deliveries yield to ingest: while
 * value writes congest the writer (`Writer.congested`: a burst of jobs waiting, or batches took a quarter or
 * more of the last 100 ms), a look starts at most one attempt and takes in an outbox row only when
 * nothing is due, and the next look is `YIELD_TO_INGEST_MS` later. A flood of writes is answered
 * first and its deliveries (durable in the outbox) follow as the flood eases; they never stop, only
 * slow down.
 */
export function kickDispatcher(deps: Deps): void {
  const state = dispatcherState(deps);
  if (!state.automatic || state.stopped || state.kickScheduled) return;
  state.kickScheduled = true;
  setTimeout(
    () => {
      state.kickScheduled = false;
      void look(deps);
    },
    deps.work.congested ? YIELD_TO_INGEST_MS : 0,
  );
}

/** Lets the dispatcher run on its own (kicks after finished attempts). */
export function startDispatcher(deps: Deps): void {
  const state = dispatcherState(deps);
  state.automatic = true;
  state.stopped = false;
}

/**
 * Stops starting attempts and waits up to `graceMs` for running ones; those still running then are
 * left unrecorded, so they are due again on the next start.
 */
export async function stopDispatcher(deps: Deps, graceMs: number): Promise<void> {
  const state = dispatcherState(deps);
  state.automatic = false;
  state.stopped = true;
  if (state.running.size === 0) return;
  let timer: ReturnType<typeof setTimeout> | undefined;
  await Promise.race([
    Promise.allSettled([...state.running]),
    new Promise<void>((resolve) => {
      timer = setTimeout(resolve, graceMs);
    }),
  ]);
  clearTimeout(timer);
}
