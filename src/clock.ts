/** Time, injected: services read wall time and monotonic time only through a Clock so tests can move it. */
export interface Clock {
  /** Wall-clock milliseconds since the epoch. */
  now(): number;
  /** Monotonic milliseconds; never jumps with the wall clock. */
  monotonic(): number;
}

export const systemClock: Clock = {
  now: () => Date.now(),
  monotonic: () => performance.now(),
};

/** A clock that moves only when told to; both readings advance together. */
export class FakeClock implements Clock {
  private wall: number;
  private mono = 0;
  constructor(start: number | string = '2026-01-15T12:00:00.000Z') {
    this.wall = typeof start === 'number' ? start : Date.parse(start);
  }
  now(): number {
    return this.wall;
  }
  monotonic(): number {
    return this.mono;
  }
  advance(ms: number): void {
    this.wall += ms;
    this.mono += ms;
  }
  /** Moves the wall clock only, as an NTP step or an operator's date change would. */
  setWall(ms: number | string): void {
    this.wall = typeof ms === 'number' ? ms : Date.parse(ms);
  }
}

/**
 * Steps of the wall clock against the monotonic one (NTP, an operator's date change), for durations
 * kept as wall-clock starts because they must survive a restart: moving such a start by the step
 * makes the duration count elapsed time. Differences under `toleranceMs` between two looks are
 * drift or slewing, never a step, and do not add up.
 */
export class WallSteps {
  private offset: number | null = null;
  constructor(private readonly toleranceMs = 1000) {}
  /**
   * How far the wall clock stepped since the last look; 0 at the first look and below the tolerance.
   * `now` is `clock.now()`, passed by a hot path that has just read it.
   */
  take(clock: Clock, now = clock.now()): number {
    const offset = now - clock.monotonic();
    const step = this.offset === null ? 0 : offset - this.offset;
    this.offset = offset;
    return Math.abs(step) < this.toleranceMs ? 0 : step;
  }

  private seen = false;
  /**
   * `take` for a store of wall-clock times that follows steps (alerts, sessions, webhook and mail
   * retries, the trash): null when there is nothing to move (no step, and not the first look since
   * the start, the look at which times a run with its clock behind stored ahead of the clock show).
   */
  look(clock: Clock, now = clock.now()): WallLook | null {
    const step = this.take(clock, now);
    if (step === 0 && this.seen) return null;
    const first = !this.seen;
    this.seen = true;
    return { step, first };
  }
}

/** How often main's `daemon.beat` job tells `Stalls` the event loop ran. */
export const BEAT_MS = 1000;
/** How late a beat may run (a busy second, the cron's rounding) before the rest of the gap counts as a stall. */
export const BEAT_SLACK_MS = 1000;

/**
 * Stalls of the daemon itself: a VM paused, SIGSTOP, a disk that hung, a long synchronous task. Both
 * clocks move through one, so `WallSteps` never shows it; what the peers sent meanwhile waits unread
 * in the sockets, and after it a timer may run before that is read. Code that decides a peer said
 * nothing for N (the push channel's and the WebSocket's idle closes, subsystem heartbeat grace)
 * measures on `listening()`: monotonic time that stands still while the daemon could not listen.
 *
 * The rule: main's `daemon.beat` job calls `beat()` every BEAT_MS. Any look (a beat or a reading)
 * that finds the last look more than BEAT_MS + BEAT_SLACK_MS ago knows the beat could not run
 * meanwhile, and counts all of that gap beyond BEAT_MS as deaf; a shorter gap is listening time.
 * Whoever looks first after a stall sees it, so a peer's message read before a sweep and a sweep run
 * before the messages are read judge the same. Before the first beat (a daemon whose jobs have not
 * started; tests that do not beat) and after `rest()` (jobs stopped at shutdown) nothing is deaf.
 */
export class Stalls {
  private last: number | null = null;
  private deafMs = 0;
  constructor(private readonly clock: Clock) {}

  /** The event loop ran (main's job, every BEAT_MS); the first beat starts the watch. */
  beat(): void {
    const mono = this.clock.monotonic();
    this.look(mono);
    this.last = mono;
  }

  /** The beats stop (shutdown): nothing is counted deaf until the next beat. */
  rest(): void {
    this.last = null;
  }

  /** Monotonic milliseconds counted only while the daemon could listen. */
  listening(mono = this.clock.monotonic()): number {
    this.look(mono);
    return mono - this.deafMs;
  }

  /** Milliseconds the daemon could not listen since the watch started; a store that follows stalls keeps what it saw. */
  deaf(): number {
    this.look(this.clock.monotonic());
    return this.deafMs;
  }

  private look(mono: number): void {
    if (this.last === null) return;
    const gap = mono - this.last;
    if (gap > BEAT_MS + BEAT_SLACK_MS) this.deafMs += gap - BEAT_MS;
    this.last = mono;
  }
}

/**
 * What one store has followed of `Stalls` (its stored times move ahead by a stall, as `WallSteps`
 * moves them by a step): `take` answers the time the daemon could not listen since the last take.
 */
export class StallsFollowed {
  private seen = 0;

  take(stalls: Stalls): number {
    const deaf = stalls.deaf();
    const stalled = deaf - this.seen;
    this.seen = deaf;
    return stalled;
  }
}

/** What `WallSteps.look` found: how far the wall clock stepped (0: not at all), and whether it is the first look. */
export interface WallLook {
  step: number;
  first: boolean;
}

// The last two times formatted. A value write formats its own time (the answer's and the event data's
// fields) and the moment its event is staged, which may be a millisecond later: with one slot the two
// evicted each other on every write (bench/RESULTS.md, "Hot paths, session 12").
let msA = Number.NaN;
let isoA = '';
let msB = Number.NaN;
let isoB = '';

/** ISO-8601 UTC with milliseconds and `Z`, the one time format on the wire. */
export function iso(ms: number): string {
  if (ms === msA) return isoA;
  const text = ms === msB ? isoB : new Date(ms).toISOString();
  // The one just asked for goes first.
  msB = msA;
  isoB = isoA;
  msA = ms;
  isoA = text;
  return text;
}

export function isoOrNull(ms: number | null | undefined): string | null {
  return ms === null || ms === undefined ? null : iso(ms);
}
