import { afterEach, describe, expect, it } from 'bun:test';
import { startWatchdog, systemdFromEnvironment, type Timers, watchdogIntervalMs } from './link';
import { type Notifier, NotifyError, socketAddress, unixDatagramNotifier } from './notify';
import { type NotifyReceiver, notifyReceiver, ON_LINUX } from './test-support';

const receivers: NotifyReceiver[] = [];
const open = (kind: 'path' | 'abstract' = 'path') => {
  const receiver = notifyReceiver(kind);
  receivers.push(receiver);
  return receiver;
};
afterEach(() => {
  for (const r of receivers.splice(0)) r.close();
});

describe.skipIf(!ON_LINUX)('sd_notify over a real unix datagram socket', () => {
  it('delivers each message as one datagram to a socket path', () => {
    const receiver = open();
    const notifier = unixDatagramNotifier(receiver.target);
    notifier.send('READY=1\nSTATUS=serving');
    notifier.send('WATCHDOG=1');
    notifier.send('STOPPING=1');
    notifier.close();
    expect(receiver.take()).toEqual(['READY=1\nSTATUS=serving', 'WATCHDOG=1', 'STOPPING=1']);
  });

  it('reaches an abstract socket name (@…)', () => {
    const receiver = open('abstract');
    const notifier = unixDatagramNotifier(receiver.target);
    notifier.send('READY=1');
    notifier.close();
    expect(receiver.take()).toEqual(['READY=1']);
  });

  it('builds the address as sd_notify does: a NUL-terminated path, an abstract name without one', () => {
    const path = socketAddress('/run/systemd/notify');
    expect(path.length).toBe(2 + '/run/systemd/notify'.length + 1);
    expect([...path.bytes.subarray(0, 3)]).toEqual([1, 0, '/'.charCodeAt(0)]);
    const abstract = socketAddress('@x');
    expect(abstract.length).toBe(4);
    expect([...abstract.bytes.subarray(0, 4)]).toEqual([1, 0, 0, 'x'.charCodeAt(0)]);
    expect(() => socketAddress('vsock:2:1234')).toThrow(NotifyError);
    expect(() => socketAddress(`/${'a'.repeat(107)}`)).toThrow(NotifyError);
  });

  it('says why a message cannot be sent (the errno, by name)', () => {
    const receiver = open();
    const notifier = unixDatagramNotifier(`${receiver.target}-missing`);
    expect(() => notifier.send('READY=1')).toThrow(/ENOENT/);
    notifier.close();
  });
});

describe.skipIf(!ON_LINUX)('the link systemd asks for (NOTIFY_SOCKET, WATCHDOG_USEC)', () => {
  it('is null when pmsd was not started as a notify service', () => {
    expect(systemdFromEnvironment({}, 42)).toBeNull();
  });

  it('sends STATUS=starting at once, so a working socket is proven before anything else runs', () => {
    const receiver = open();
    const link = systemdFromEnvironment({ NOTIFY_SOCKET: receiver.target, WATCHDOG_USEC: '30000000' }, 42);
    expect(link?.watchdogMs).toBe(15_000);
    link?.notifier.close();
    expect(receiver.take()).toEqual(['STATUS=starting']);
  });

  it('fails with one clear line when NOTIFY_SOCKET is set but unusable', () => {
    const receiver = open();
    const attempts = [
      { NOTIFY_SOCKET: `${receiver.target}.gone` },
      { NOTIFY_SOCKET: 'vsock:2:1234' },
      { NOTIFY_SOCKET: receiver.target, WATCHDOG_USEC: 'soon' },
      { WATCHDOG_USEC: '1000000' },
    ];
    const messages = attempts.map((env) => {
      try {
        systemdFromEnvironment(env, 42)?.notifier.close();
        return 'no error';
      } catch (err) {
        expect(err).toBeInstanceOf(NotifyError);
        return (err as Error).message;
      }
    });
    expect(messages[0]).toBe(
      `NOTIFY_SOCKET is set, so systemd waits for pmsd's readiness notification (Type=notify), but pmsd cannot send it: cannot send to NOTIFY_SOCKET=${receiver.target}.gone: ENOENT (no such socket). Start pmsd from its unit, or unset NOTIFY_SOCKET when running it by hand`,
    );
    expect(messages[1]).toContain('is not a unix socket path or @abstract name');
    expect(messages[2]).toBe('WATCHDOG_USEC=soon is not a positive number of microseconds');
    expect(messages[3]).toBe('WATCHDOG_USEC is set but NOTIFY_SOCKET is not, so the watchdog could never be fed');
  });

  it('pings at half of WATCHDOG_USEC, only for the process WATCHDOG_PID names', () => {
    expect(watchdogIntervalMs({ WATCHDOG_USEC: '20000000' }, 7)).toBe(10_000);
    expect(watchdogIntervalMs({ WATCHDOG_USEC: '20000000', WATCHDOG_PID: '7' }, 7)).toBe(10_000);
    expect(watchdogIntervalMs({ WATCHDOG_USEC: '20000000', WATCHDOG_PID: '8' }, 7)).toBeNull();
    expect(watchdogIntervalMs({}, 7)).toBeNull();
  });
});

/** Interval timers that fire only when the test moves time. */
class FakeTimers implements Timers {
  now = 0;
  private next = 1;
  private readonly timers = new Map<number, { run: () => void; every: number; due: number }>();
  setInterval(run: () => void, ms: number): unknown {
    const id = this.next++;
    this.timers.set(id, { run, every: ms, due: this.now + ms });
    return id;
  }
  clearInterval(handle: unknown): void {
    this.timers.delete(handle as number);
  }
  advance(ms: number): void {
    const end = this.now + ms;
    for (;;) {
      const due = [...this.timers.values()].sort((a, b) => a.due - b.due)[0];
      if (!due || due.due > end) break;
      this.now = due.due;
      due.due += due.every;
      due.run();
    }
    this.now = end;
  }
}

describe('the watchdog (WatchdogSec=)', () => {
  const recording = () => {
    const sent: { at: number; state: string }[] = [];
    const timers = new FakeTimers();
    const notifier: Notifier = {
      target: 'fake',
      send: (state) => {
        sent.push({ at: timers.now, state });
      },
      close: () => {},
    };
    return { sent, timers, notifier };
  };

  it('pings at once and then every interval, and stops when told', () => {
    const { sent, timers, notifier } = recording();
    const interval = watchdogIntervalMs({ WATCHDOG_USEC: '30000000' }, 1) ?? 0;
    const stop = startWatchdog(notifier, interval, () => {}, timers);
    timers.advance(14_999);
    expect(sent.map((s) => s.at)).toEqual([0]);
    timers.advance(1);
    timers.advance(45_000);
    expect(sent.map((s) => s.at)).toEqual([0, 15_000, 30_000, 45_000, 60_000]);
    expect(new Set(sent.map((s) => s.state))).toEqual(new Set(['WATCHDOG=1']));
    // Never more than half the timeout between two pings: systemd's limit is never reached.
    const gaps = sent.slice(1).map((s, i) => s.at - (sent[i]?.at ?? 0));
    expect(Math.max(...gaps)).toBeLessThanOrEqual(15_000);
    stop();
    timers.advance(60_000);
    expect(sent).toHaveLength(5);
  });

  it('reports a refused ping and keeps pinging', () => {
    const timers = new FakeTimers();
    let refuse = true;
    const sent: number[] = [];
    const errors: unknown[] = [];
    const notifier: Notifier = {
      target: 'fake',
      send: () => {
        if (refuse) throw new NotifyError('EAGAIN');
        sent.push(timers.now);
      },
      close: () => {},
    };
    startWatchdog(notifier, 1000, (err) => errors.push(err), timers);
    timers.advance(1000);
    refuse = false;
    timers.advance(2000);
    expect(errors).toHaveLength(2);
    expect(sent).toEqual([2000, 3000]);
  });

  it.skipIf(!ON_LINUX)('feeds a real socket from the event loop', async () => {
    const receiver = open();
    const notifier = unixDatagramNotifier(receiver.target);
    const stop = startWatchdog(notifier, 20, () => {});
    await receiver.waitFor((m) => m === 'WATCHDOG=1');
    await receiver.waitFor((m) => m === 'WATCHDOG=1');
    stop();
    notifier.close();
  });
});
