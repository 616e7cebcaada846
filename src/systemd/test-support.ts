/**
 * The other end of NOTIFY_SOCKET for tests: a unix datagram socket bound through libc (bun:ffi), read
 * without blocking, as systemd's manager reads the messages of its services.
 */
import { dlopen, FFIType } from 'bun:ffi';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { socketAddress } from './notify';

const libc = () =>
  dlopen('libc.so.6', {
    socket: { args: [FFIType.i32, FFIType.i32, FFIType.i32], returns: FFIType.i32 },
    bind: { args: [FFIType.i32, FFIType.ptr, FFIType.u32], returns: FFIType.i32 },
    recv: { args: [FFIType.i32, FFIType.ptr, FFIType.u64, FFIType.i32], returns: FFIType.i64 },
    close: { args: [FFIType.i32], returns: FFIType.i32 },
  }).symbols;

/** systemd's notification socket exists on Linux only. */
export const ON_LINUX = process.platform === 'linux';

export interface NotifyReceiver {
  /** What NOTIFY_SOCKET should say. */
  target: string;
  /** Every message received so far (each one datagram), oldest first; clears the queue. */
  take(): string[];
  /** Waits until a message satisfies `match` (polling), or throws after `timeoutMs`. */
  waitFor(match: (message: string) => boolean, timeoutMs?: number): Promise<string>;
  close(): void;
}

/** A bound receiver: at a path in a fresh folder, or under an abstract name (`@…`). */
export function notifyReceiver(kind: 'path' | 'abstract' = 'path'): NotifyReceiver {
  const c = libc();
  const dir = mkdtempSync(join(tmpdir(), 'pms-notify-'));
  const target = kind === 'path' ? join(dir, 'notify') : `@pms-notify-test-${process.pid}-${Date.now()}`;
  const fd = c.socket(1, 2 | 0o2000000, 0);
  const address = socketAddress(target);
  if (fd < 0 || c.bind(fd, address.bytes, address.length) !== 0) throw new Error(`cannot bind ${target}`);
  const seen: string[] = [];
  const buffer = new Uint8Array(4096);
  const drain = () => {
    for (;;) {
      const n = Number(c.recv(fd, buffer, buffer.length, 0x40));
      if (n < 0) return;
      seen.push(new TextDecoder().decode(buffer.subarray(0, n)));
    }
  };
  return {
    target,
    take() {
      drain();
      return seen.splice(0);
    },
    async waitFor(match, timeoutMs = 5000) {
      const deadline = performance.now() + timeoutMs;
      for (;;) {
        drain();
        const index = seen.findIndex(match);
        if (index >= 0) return seen.splice(0, index + 1)[index] as string;
        if (performance.now() > deadline) throw new Error(`no matching notification within ${timeoutMs} ms`);
        await Bun.sleep(20);
      }
    },
    close() {
      c.close(fd);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
