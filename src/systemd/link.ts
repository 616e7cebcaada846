/**
 * The daemon's link to systemd (pmsd.service is `Type=notify` with `WatchdogSec=`): read from the
 * environment systemd sets (sd_notify(3), sd_watchdog_enabled(3)), checked once at start, before the
 * database is opened, so a unit that waits for a notification pmsd cannot send fails at once with one
 * clear line instead of timing out.
 *
 * The watchdog is fed by a timer on the event loop at half of `WATCHDOG_USEC`: when the loop is stuck
 * (a runaway synchronous call), the pings stop and systemd restarts the daemon (`Restart=on-failure`).
 */
import { type Notifier, NotifyError, unixDatagramNotifier } from './notify';

export { NotifyError } from './notify';

export interface SystemdLink {
  notifier: Notifier;
  /** How often to ping (half the watchdog timeout); null when no watchdog is asked for this process. */
  watchdogMs: number | null;
}

/** The timers the watchdog runs on: the event loop's, or a fake one in tests. */
export interface Timers {
  setInterval(run: () => void, ms: number): unknown;
  clearInterval(handle: unknown): void;
}

const eventLoop: Timers = {
  setInterval: (run, ms) => setInterval(run, ms),
  clearInterval: (handle) => clearInterval(handle as ReturnType<typeof setInterval>),
};

/**
 * `WATCHDOG_USEC` (and `WATCHDOG_PID`, when set, naming this process) as the ping interval in ms, half
 * the timeout as sd_watchdog_enabled(3) advises; null when unset or meant for another process.
 */
export function watchdogIntervalMs(env: Record<string, string | undefined>, pid: number): number | null {
  const usec = env.WATCHDOG_USEC;
  if (usec === undefined || usec === '') return null;
  if (!/^[1-9][0-9]{0,15}$/.test(usec))
    throw new NotifyError(`WATCHDOG_USEC=${usec} is not a positive number of microseconds`);
  const owner = env.WATCHDOG_PID;
  if (owner !== undefined && owner !== '' && owner !== String(pid)) return null;
  return Math.max(1, Math.floor(Number(usec) / 2000));
}

/**
 * The link systemd asked for, or null when pmsd was not started as a notify service. Throws
 * NotifyError (with the reason) when `NOTIFY_SOCKET` is set but no message can reach it: the first
 * message (`STATUS=starting`) is sent here, so a missing or refused socket is found before anything else.
 */
export function systemdFromEnvironment(
  env: Record<string, string | undefined>,
  pid: number,
  open: (target: string) => Notifier = unixDatagramNotifier,
): SystemdLink | null {
  const target = env.NOTIFY_SOCKET;
  const watchdogMs = watchdogIntervalMs(env, pid);
  if (target === undefined || target === '') {
    if (watchdogMs !== null)
      throw new NotifyError('WATCHDOG_USEC is set but NOTIFY_SOCKET is not, so the watchdog could never be fed');
    return null;
  }
  const explain = (reason: string) =>
    new NotifyError(
      `NOTIFY_SOCKET is set, so systemd waits for pmsd's readiness notification (Type=notify), but pmsd cannot send it: ${reason}. Start pmsd from its unit, or unset NOTIFY_SOCKET when running it by hand`,
    );
  let notifier: Notifier;
  try {
    notifier = open(target);
    notifier.send('STATUS=starting');
  } catch (err) {
    if (err instanceof NotifyError) throw explain(err.message);
    throw err;
  }
  return { notifier, watchdogMs };
}

/**
 * Pings `WATCHDOG=1` every `intervalMs` from the event loop; a ping the kernel refuses is reported
 * and tried again at the next tick. Returns the function that stops it.
 */
export function startWatchdog(
  notifier: Notifier,
  intervalMs: number,
  onError: (err: unknown) => void,
  timers: Timers = eventLoop,
): () => void {
  const ping = () => {
    try {
      notifier.send('WATCHDOG=1');
    } catch (err) {
      onError(err);
    }
  };
  ping();
  const handle = timers.setInterval(ping, intervalMs);
  return () => timers.clearInterval(handle);
}
