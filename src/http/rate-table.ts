/**
 * The flood limiter's tables, per daemon (`deps.rateLimiter`): GCRA buckets by caller or address.
 * Data and its arithmetic only; rate-limit.ts decides which budget a request counts against. Apart
 * from rate-limit.ts because that file takes Deps, and deps.ts must not import what imports it.
 */
import { makeRoom } from './bounded';

/** Keys one table holds at most (a key is a short string and a number: ~1 MB per table when full). */
export const MAX_KEYS = 10_000;

/** One GCRA table: key → the time its bucket is next full ("theoretical arrival time"). */
export class RateTable {
  private readonly tats = new Map<string, number>();
  constructor(private readonly maxKeys = MAX_KEYS) {}

  get size(): number {
    return this.tats.size;
  }

  /**
   * Counts one request of `key` at `now` against `perSecond` with `burst` requests allowed at once.
   * Returns 0 when allowed (and counted), else the milliseconds until one would be.
   */
  take(key: string, now: number, perSecond: number, burst: number): number {
    const interval = 1000 / perSecond;
    const tat = this.tats.get(key);
    const next = (tat === undefined || tat < now ? now : tat) + interval;
    const over = next - now - interval * burst;
    if (over > 0) return over;
    if (tat === undefined && this.tats.size >= this.maxKeys) this.makeRoom(now);
    this.tats.set(key, next);
    return 0;
  }

  private makeRoom(now: number): void {
    makeRoom(this.tats, this.maxKeys, (tat) => tat <= now);
  }
}

/** The three budgets' tables of one daemon (one set per Deps, so every test app starts with empty ones). */
export class RateLimiter {
  readonly requests = new RateTable();
  readonly values = new RateTable();
  readonly heartbeats = new RateTable();
}
