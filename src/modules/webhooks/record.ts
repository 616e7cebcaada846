/**
 * Recording an attempt (§10 rules 2 and 4): the delivery's attempts, status and next attempt, the
 * webhook's health fields and, when the attempt disabled the webhook, `webhook.disabled` (and for
 * rule 4 a notification), in one transaction.
 */
import { followRetryTimes } from '../../core/retry-times';
import type { StoredAttempt } from '../../db/schema';
import type { Deps } from '../../deps';
import { emit, transact } from '../../realtime/emit';
import { invalidateWebhookCache } from '../../realtime/outbox';
import type { AttemptOutcome } from './attempt';
import type { DeliveryRow, WebhookRow } from './mapper';
import { webhookStore } from './store';

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
/** The waits after the 1st … 7th failed attempt; the 8th failure makes the delivery dead. */
export const RETRY_DELAYS_MS = [5 * SECOND, 5 * MINUTE, 30 * MINUTE, 2 * HOUR, 5 * HOUR, 10 * HOUR, 10 * HOUR];
export const MAX_ATTEMPTS = RETRY_DELAYS_MS.length + 1;
/**
 * Rule 4: no success for this long while deliveries kept failing disables the webhook. Failing time
 * is what attempts observed (decided here, RESOURCES is silent on it): a gap between two attempts
 * longer than the longest retry wait (10 h + 10 %) is not counted, nor one that runs backwards. Such
 * a gap is time nobody watched (the daemon down, every delivery dead, no event) or a wall clock
 * stepped (an appliance back from a power cut with its clock months behind, then NTP): neither may
 * disable a webhook whose receiver failed twice, minutes apart, while the venue came back up.
 */
export const FAILING_DISABLE_MS = 3 * 24 * HOUR;
const LONGEST_RETRY_WAIT_MS = Math.max(...RETRY_DELAYS_MS) * 1.1;

/** Since when a webhook failing at `at` counts as failing: its earlier streak, less the unwatched gap. */
function failingSince(hook: WebhookRow, at: number): number {
  if (hook.failingSince === null) return at;
  const last = hook.lastDeliveryAt ?? hook.failingSince;
  const gap = at - last;
  if (gap >= 0 && gap <= LONGEST_RETRY_WAIT_MS) return hook.failingSince;
  return at - Math.max(0, last - hook.failingSince);
}

/**
 * Retry waits count elapsed time whatever the wall clock does (core/retry-times.ts): `retrying`
 * deliveries are the retrying rows, `updatedAt` their failure, `pending` ones never tried.
 */
export function followWallClock(deps: Deps): void {
  followRetryTimes(deps, deps.webhooks.wallSteps, {
    table: 'webhook_deliveries',
    retrying: "status = 'retrying' AND next_attempt_at IS NOT NULL",
    untried: "status = 'pending'",
    failedAt: 'updated_at',
  });
}

/** The wait before the next attempt after `failures` failed ones, with ±10 % jitter. */
export function retryDelay(deps: Deps, failures: number): number {
  const base = RETRY_DELAYS_MS[Math.min(failures, RETRY_DELAYS_MS.length) - 1] ?? 0;
  return Math.round(base * (0.9 + 0.2 * deps.webhookIo.random()));
}

export type AttemptKind = 'scheduled' | 'test';

function nextDeliveryState(
  deps: Deps,
  delivery: DeliveryRow,
  outcome: AttemptOutcome,
  kind: AttemptKind,
): Partial<DeliveryRow> {
  const attempt: StoredAttempt = {
    at: outcome.at,
    responseStatus: outcome.responseStatus,
    durationMs: outcome.durationMs,
    error: outcome.error,
  };
  const base = {
    attempts: [...delivery.attempts, attempt],
    responseBodyExcerpt: outcome.excerpt,
    updatedAt: deps.clock.now(),
  };
  if (outcome.error === null) return { ...base, status: 'succeeded', nextAttemptAt: null };
  const failures = delivery.roundAttempts + 1;
  // A test is sent once and waits for its result (§10): it is not retried.
  if (kind === 'test' || failures >= MAX_ATTEMPTS) {
    return { ...base, status: 'dead', nextAttemptAt: null, roundAttempts: failures };
  }
  return {
    ...base,
    status: 'retrying',
    nextAttemptAt: deps.clock.now() + retryDelay(deps, failures),
    roundAttempts: failures,
  };
}

type Disabled = 'gone' | 'failing' | null;

function nextWebhookState(hook: WebhookRow, outcome: AttemptOutcome, now: number): [Partial<WebhookRow>, Disabled] {
  const changes: Partial<WebhookRow> = { lastDeliveryAt: outcome.at };
  // A webhook switched off while the attempt ran keeps the state it was given.
  if (!hook.active) return [changes, null];
  if (outcome.error === null) {
    return [
      { ...changes, lastSuccessAt: outcome.at, consecutiveFailures: 0, failingSince: null, state: 'active' },
      null,
    ];
  }
  const since = failingSince(hook, outcome.at);
  const failed = {
    ...changes,
    consecutiveFailures: hook.consecutiveFailures + 1,
    failingSince: since,
    state: 'failing',
  };
  const disable = (reason: Disabled & string): [Partial<WebhookRow>, Disabled] => [
    { ...failed, active: false, state: 'disabled', disabledReason: reason, updatedAt: now },
    reason,
  ];
  if (outcome.responseStatus === 410) return disable('gone');
  if (outcome.at - since >= FAILING_DISABLE_MS) return disable('failing');
  return [failed, null];
}

/**
 * Stores an attempt's outcome; a test attempt leaves the webhook's health alone. Does nothing when the
 * delivery is gone (its webhook was deleted while the attempt ran).
 */
export function recordAttempt(deps: Deps, deliveryId: number, outcome: AttemptOutcome, kind: AttemptKind): void {
  followWallClock(deps);
  const store = webhookStore(deps);
  const now = deps.clock.now();
  let disabling = false;
  try {
    transact(deps, () => {
      const delivery = store.delivery(deliveryId);
      if (!delivery) return;
      store.saveDelivery({ ...delivery, ...nextDeliveryState(deps, delivery, outcome, kind) });
      if (kind === 'test') return;
      const hook = store.webhook(delivery.webhookId);
      if (!hook) return;
      const [changes, reason] = nextWebhookState(hook, outcome, now);
      store.saveHealth({ ...hook, ...changes });
      if (reason === null) return;
      disabling = true;
      announceDisabled(deps, hook, reason);
    });
  } finally {
    // The cache may have been read inside the transaction: never keep a rolled-back disable.
    if (disabling) invalidateWebhookCache(deps);
  }
}

/** The notification and the `webhook-disabled` incident come from the alerts module's system rule on this event. */
function announceDisabled(deps: Deps, hook: WebhookRow, reason: 'gone' | 'failing'): void {
  invalidateWebhookCache(deps);
  emit(deps, 'webhook.disabled', { _id: hook.id, disabledReason: reason });
}
