/**
 * What every part of the venue builder shares: a call that must succeed (a failed set-up step fails
 * the sweep loudly, with the answer), the callers a venue is built by, and time passing with the
 * timed jobs the daemon would run (main starts them on real timers; here each runs once per step).
 */
import { tickAlerts } from '../../src/modules/alerts/jobs';
import { runDueMail } from '../../src/modules/mail/dispatch';
import { expireNotifications } from '../../src/modules/notifications/jobs';
import { runScheduleTick } from '../../src/modules/schedule/runner/runner';
import { sweepExpiredMessages } from '../../src/modules/subsystems/actions';
import { tickHealth } from '../../src/modules/subsystems/health';
import { tickVariableHealth } from '../../src/modules/variables/health';
import { runDueDeliveries } from '../../src/modules/webhooks/dispatch';
import type { CallOptions, CallResult, TestApp } from './app';

/** A field client: no credential, from the trusted loopback network, so it acts as `integration` (C: Authentication). */
export const FIELD: CallOptions = { from: '127.0.0.1' };
export const ADMIN: CallOptions = { as: 'admin' };
export const OPERATOR: CallOptions = { as: 'operator' };
export const INTEGRATION: CallOptions = { as: 'integration' };

/** Calls and throws unless the answer has one of the `expected` statuses (2xx of a create or update by default). */
export async function must(
  t: TestApp,
  method: string,
  path: string,
  options: CallOptions,
  expected: number | readonly number[] = [200, 201],
): Promise<CallResult> {
  const res = await t.call(method, path, options);
  const wanted = typeof expected === 'number' ? [expected] : expected;
  if (!wanted.includes(res.status)) {
    throw new Error(
      `venue set-up: ${method} ${path} answered ${res.status}, wanted ${wanted.join(' or ')}: ${res.text}`,
    );
  }
  return res;
}

/** `must` for a create or upsert: the entity's `_id` (and the body). */
export async function made(
  t: TestApp,
  method: string,
  path: string,
  options: CallOptions,
): Promise<{ _id: number } & Record<string, unknown>> {
  const res = await must(t, method, path, options);
  if (typeof res.body?._id !== 'number') throw new Error(`venue set-up: ${method} ${path} gave no _id: ${res.text}`);
  return res.body;
}

/** A heartbeat as a field driver sends it: PUT with an empty body, from the trusted network. */
export async function beat(t: TestApp, externalId: string, options: CallOptions = FIELD): Promise<void> {
  await must(t, 'PUT', `/subsystems/${externalId}/heartbeat`, options, 200);
}

/** One pass of every per-second job the daemon runs on timers. */
export async function runJobs(t: TestApp): Promise<void> {
  tickHealth(t.deps);
  sweepExpiredMessages(t.deps);
  tickAlerts(t.deps);
  runScheduleTick(t.deps);
  await tickVariableHealth(t.deps);
  expireNotifications(t.deps);
  await runDueDeliveries(t.deps);
  await runDueMail(t.deps);
}

/**
 * Moves the fake clock by `gaps` (uneven, fractional milliseconds, as a real monotonic clock moves),
 * beating `alive` subsystems and running the jobs after each step.
 */
export async function pass(t: TestApp, gaps: readonly number[], alive: readonly string[] = []): Promise<void> {
  for (const gap of gaps) {
    t.clock.advance(gap);
    for (const id of alive) await beat(t, id);
    await runJobs(t);
  }
}

/** `n` uneven gaps around `ms` (deterministic: a venue is the same on every run). */
export function gapsAround(ms: number, n: number): number[] {
  return Array.from({ length: n }, (_, i) => ms * (1 + (((i * 37) % 11) - 5) / 53) + (i % 3) * 0.37);
}

/** ISO time `ms` from the fake clock's now. */
export function at(t: TestApp, ms: number): string {
  return new Date(t.clock.now() + ms).toISOString();
}

/** The id recorded under `key`; a missing one is a bug in the venue builder itself. */
export function need(ids: Record<string, number>, key: string): number {
  const id = ids[key];
  if (id === undefined) throw new Error(`venue set-up: nothing recorded as ${key}`);
  return id;
}
