/**
 * Flood protection (C: Limits): a caller that sends more than its budget gets 429 `rate_limited`
 * with `Retry-After` before it can starve others. Decisions:
 *
 * - Who is counted: the authenticated caller, by `Principal.label` (a user across all their
 *   sessions, an API token, or a trusted address acting without credential), so a stream of random
 *   bogus tokens shares one budget instead of getting a fresh one each. A request without a valid
 *   caller (no credential, a bad one, public routes, unknown routes, every 401) counts against its
 *   peer address.
 * - Three budgets (settings group `rateLimits`, overridden by `PMS_RATE_LIMIT_*`, 0 = off):
 *   people-facing calls (everything else) 50/s with a burst of 300, per caller or address; value
 *   writes 10 000/s with a burst of 20 000 per caller (one integration may use over half of what a
 *   2-core appliance ingests, ~17 000/s, and people keep their own budgets); heartbeats 10/s with a
 *   burst of 20 per caller *and subsystem*. Heartbeats have a budget per subsystem and share nothing
 *   with value writes: a limited heartbeat would raise a false "offline" alarm, so however many
 *   subsystems sit behind one trusted address or token, and however hard that caller floods values,
 *   one heartbeat a second per subsystem is never refused; only a runaway subsystem is slowed.
 *   A caller acting as the integration role (a trusted address without credential, an integration
 *   token) is a machine, not a person: its other calls count against the ingest budget too, because
 *   a field driver registers and syncs hundreds of variables and events in one burst at start-up
 *   (the ISAAC driver does), and a 429 there would leave the venue half-registered. Log posts count
 *   against it whoever sends them (§9 rule 4).
 * - Algorithm: GCRA (a token bucket held as one number per key, its "theoretical arrival time"),
 *   on `clock.monotonic()`, so the fake clock drives it in tests and a wall-clock step changes
 *   nothing. A request costs a Map lookup and some arithmetic. Written here rather than taken from
 *   npm: the well-known limiters read `Date.now()` themselves (no injected clock), keep more state
 *   per key and bring stores and timers this in-memory appliance does not need.
 * - Memory: a key whose bucket is full again is idle and forgetting it changes nothing. A table
 *   holds at most MAX_KEYS keys; when full it drops the idle ones, and if a spray of addresses keeps
 *   it full of live ones, the oldest quarter (forgiven early, never refused wrongly). Amortised O(1).
 * - Counted once per request: `rateLimitHook` runs in `onRequest` before routing (after the value
 *   door), the value door calls `limitValueWrite` itself and the heartbeat door `limitHeartbeat`
 *   (http/door.ts); both answer before Elysia's hook would run.
 *   The caller is decided through auth.ts, which memoises it for the route's own auth check.
 */

import type { RateLimitSettings } from '../config';
import { rateLimitSettings } from '../core/settings';
import type { Deps } from '../deps';
import { validCaller } from './auth';
import { rateLimited } from './errors';
import type { RateLimiter, RateTable } from './rate-table';

/** A flood is not a failed attempt (sign-in locks keep their own message). */
export const FLOODED = 'too many requests, try again later';

function take(deps: Deps, table: RateTable, key: string, perSecond: number, burst: number): void {
  if (perSecond <= 0) return;
  const waitMs = table.take(key, deps.clock.monotonic(), perSecond, burst);
  if (waitMs > 0) throw rateLimited(waitMs / 1000, FLOODED);
}

/** A request without a valid caller: its address's people-facing budget. */
function takeForAddress(deps: Deps, limiter: RateLimiter, request: Request, limits: RateLimitSettings): void {
  take(deps, limiter.requests, deps.remoteAddress(request) ?? '-', limits.requestsPerSecond, limits.requestBurst);
}

/** The heartbeat (`PUT`, and any alias another method may get; only the plural path has one, §3). */
export const HEARTBEAT_PATH = /^https?:\/\/[^/]+\/api\/v1\/subsystems\/([^/?#]+)\/heartbeat\/?(?:[?#].*)?$/;
/** Posting log entries counts against the ingest budget whoever posts (§9 rule 4). */
const LOG_POST_PATH = /^https?:\/\/[^/]+\/api\/v1\/logs\/?(?:[?#].*)?$/;

/**
 * The `onRequest` hook: counts every request the value door left alone against the one budget it
 * belongs to (a budget set to 0 counts nothing); throws 429 when over it.
 */
export function rateLimitHook(deps: Deps) {
  const limiter = deps.rateLimiter;
  return ({ request }: { request: Request }): void => {
    const limits = rateLimitSettings(deps);
    const caller = validCaller(deps, request);
    const heartbeat = caller === null || request.method === 'GET' ? null : HEARTBEAT_PATH.exec(request.url);
    if (caller === null) takeForAddress(deps, limiter, request, limits);
    else if (heartbeat?.[1] !== undefined) takeHeartbeat(deps, limits, caller.label, heartbeat[1]);
    else if (caller.integration || (request.method === 'POST' && LOG_POST_PATH.test(request.url)))
      take(deps, limiter.values, caller.label, limits.ingestPerSecond, limits.ingestBurst);
    else take(deps, limiter.requests, caller.label, limits.requestsPerSecond, limits.requestBurst);
  };
}

/** A heartbeat's count: the caller's budget for this subsystem (`segment`: the path segment as sent). */
function takeHeartbeat(deps: Deps, limits: RateLimitSettings, label: string, segment: string): void {
  take(deps, deps.rateLimiter.heartbeats, `${label}|${segment}`, limits.heartbeatsPerSecond, limits.heartbeatBurst);
}

/** The heartbeat door's count, for the path segment it matched: what the hook counts for a heartbeat. */
export function limitHeartbeat(deps: Deps, request: Request, segment: string): void {
  const limits = rateLimitSettings(deps);
  const caller = validCaller(deps, request);
  if (caller === null) takeForAddress(deps, deps.rateLimiter, request, limits);
  else takeHeartbeat(deps, limits, caller.label, segment);
}

/** The value door's count (`POST /variables/{id}/value`): the caller's ingest budget; throws 429 when over it. */
export function limitValueWrite(deps: Deps, request: Request): void {
  const limits = rateLimitSettings(deps);
  const caller = validCaller(deps, request);
  const limiter = deps.rateLimiter;
  if (caller === null) takeForAddress(deps, limiter, request, limits);
  else take(deps, limiter.values, caller.label, limits.ingestPerSecond, limits.ingestBurst);
}
