/**
 * Login throttling (C: Authentication): five failures for one username from one address within
 * 15 minutes lock that pair until the oldest failure is 15 minutes old; a success clears the count.
 * Kept in memory: a restart forgives, which costs an attacker a reboot of the appliance.
 */
import type { Deps } from '../../deps';

export const MAX_FAILURES = 5;
export const WINDOW_MS = 15 * 60_000;

const failures = new WeakMap<Deps, Map<string, number[]>>();

function table(deps: Deps): Map<string, number[]> {
  let map = failures.get(deps);
  if (!map) {
    map = new Map();
    failures.set(deps, map);
  }
  return map;
}

const keyOf = (username: string, address: string | null) => `${username.toLowerCase()}|${address ?? ''}`;

function recent(deps: Deps, key: string): number[] {
  const now = deps.clock.now();
  const list = (table(deps).get(key) ?? []).filter((t) => now - t < WINDOW_MS);
  if (list.length === 0) table(deps).delete(key);
  else table(deps).set(key, list);
  return list;
}

/** Seconds until the pair may try again, or 0 when it is not locked. */
export function lockedForSeconds(deps: Deps, username: string, address: string | null): number {
  const list = recent(deps, keyOf(username, address));
  if (list.length < MAX_FAILURES) return 0;
  const oldest = list[list.length - MAX_FAILURES] ?? deps.clock.now();
  return Math.max(1, Math.ceil((oldest + WINDOW_MS - deps.clock.now()) / 1000));
}

/** Records a failure; true when this failure locked the pair. */
export function recordFailure(deps: Deps, username: string, address: string | null): boolean {
  const key = keyOf(username, address);
  const list = recent(deps, key);
  list.push(deps.clock.now());
  table(deps).set(key, list);
  return list.length === MAX_FAILURES;
}

export function clearFailures(deps: Deps, username: string, address: string | null): void {
  table(deps).delete(keyOf(username, address));
}
