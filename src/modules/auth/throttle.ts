/**
 * Login throttling (C: Authentication, Limits). Two locks, both over a sliding 15-minute window:
 * - per username and address: five failures lock that pair until the oldest of them is 15 minutes
 *   old; a success clears the pair's count (the contract's rule, fixed);
 * - per address across usernames: `rateLimits.loginFailuresPerAddress` failures (default 20, 0 = off)
 *   lock the address the same way, so one address cannot try 40 usernames five times each. A success
 *   does not clear it: an attacker holding one account could otherwise reset it between guesses.
 * Kept in memory: a restart forgives, which costs an attacker a reboot of the appliance. Failure times
 * are monotonic (`clock.monotonic()`), so the window and the lock count elapsed time whatever the wall
 * clock does: an NTP step ahead does not lift a lock early, a step back does not hold it for hours. Each table
 * keeps at most MAX_KEYS keys: when full, expired keys go first, then the oldest quarter (forgiven early).
 *
 * An attempt counts as a failure from the moment it is let through (`beginAttempt`), before the
 * password is checked, and is taken back only when it succeeds (`Attempt.succeeded`): the check takes
 * tens of milliseconds, and when the failure was counted after it, forty guesses sent at once all
 * passed the lock (the right one among them signed in; no 429 came back). Now the sixth of a burst is
 * refused, as the sixth in a row is.
 */

import { rateLimitSettings } from '../../core/settings';
import type { Deps } from '../../deps';
import { makeRoom } from '../../http/bounded';

export const MAX_FAILURES = 5;
export const WINDOW_MS = 15 * 60_000;
export const MAX_KEYS = 10_000;

const pairKey = (username: string, address: string | null) => `${username.toLowerCase()}|${address ?? ''}`;
const addressKey = (address: string | null) => address ?? '';

/** The failures of `key` inside the window (older ones dropped; the key too when none are left). */
function recent(deps: Deps, table: Map<string, number[]>, key: string): number[] {
  const now = deps.clock.monotonic();
  const list = (table.get(key) ?? []).filter((t) => now - t < WINDOW_MS);
  if (list.length === 0) table.delete(key);
  else table.set(key, list);
  return list;
}

/** Seconds until the oldest of the last `max` failures leaves the window, or 0 while fewer than `max`. */
function lockSeconds(deps: Deps, list: number[], max: number): number {
  if (max <= 0 || list.length < max) return 0;
  const oldest = list[list.length - max] ?? deps.clock.monotonic();
  return Math.max(1, Math.ceil((oldest + WINDOW_MS - deps.clock.monotonic()) / 1000));
}

/** Adds a failure, keeping only the last `max` (all a lock looks at), so a list never grows past it. */
function push(deps: Deps, table: Map<string, number[]>, key: string, max: number): number {
  const list = recent(deps, table, key);
  if (list.length === 0) {
    const now = deps.clock.monotonic();
    makeRoom(table, MAX_KEYS, (failures) => !failures.some((t) => now - t < WINDOW_MS));
  }
  list.push(deps.clock.monotonic());
  if (list.length > max) list.splice(0, list.length - max);
  table.set(key, list);
  return list.length;
}

/** Seconds until the pair (or the whole address) may try again, or 0 when neither is locked. */
export function lockedForSeconds(deps: Deps, username: string, address: string | null): number {
  const { pairs, addresses } = deps.signInThrottle;
  const perAddress = rateLimitSettings(deps).loginFailuresPerAddress;
  return Math.max(
    lockSeconds(deps, recent(deps, pairs, pairKey(username, address)), MAX_FAILURES),
    lockSeconds(deps, recent(deps, addresses, addressKey(address)), perAddress),
  );
}

/** A success clears the pair's count, never the address's. */
function clearFailures(deps: Deps, username: string, address: string | null): void {
  deps.signInThrottle.pairs.delete(pairKey(username, address));
}

/** One password check let through, already counted as a failure (see the module's comment). */
export interface Attempt {
  /** The check failed: the count stays; whether this attempt's failure locked the pair or the address. */
  failed(): { pairLocked: boolean; addressLocked: boolean };
  /** The check succeeded: the pair's count is cleared, and this attempt leaves the address's count. */
  succeeded(): void;
}

/** Lets an attempt through (counted as a failure until it succeeds), or the seconds of the lock. */
export function beginAttempt(deps: Deps, username: string, address: string | null): Attempt | number {
  const locked = lockedForSeconds(deps, username, address);
  if (locked > 0) return locked;
  const { pairs, addresses } = deps.signInThrottle;
  const perAddress = rateLimitSettings(deps).loginFailuresPerAddress;
  const at = deps.clock.monotonic();
  const pairLocked = push(deps, pairs, pairKey(username, address), MAX_FAILURES) === MAX_FAILURES;
  const addressLocked = perAddress > 0 && push(deps, addresses, addressKey(address), perAddress) === perAddress;
  return {
    failed: () => ({ pairLocked, addressLocked }),
    succeeded: () => {
      clearFailures(deps, username, address);
      if (perAddress <= 0) return;
      const list = addresses.get(addressKey(address));
      const mine = list?.lastIndexOf(at) ?? -1;
      if (list && mine >= 0) list.splice(mine, 1);
      if (list?.length === 0) addresses.delete(addressKey(address));
    },
  };
}

/** How many keys the tables hold, to prove their size stays bounded. */
export function throttleSize(deps: Deps): { pairs: number; addresses: number } {
  const { pairs, addresses } = deps.signInThrottle;
  return { pairs: pairs.size, addresses: addresses.size };
}
