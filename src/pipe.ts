/**
 * A pipe between the request thread and a worker thread (the C library's `pipe2`, libc.ts): the
 * request thread's end does not block (Bun waits for room instead of stalling the event loop: a
 * blocking end paused it up to 51 ms a GiB, measured), the reading end does, for a thread that reads
 * it synchronously. Both close on exec. The pipe holds up to 1 MiB where the kernel allows it.
 */
import { ptr } from 'bun:ffi';
import { openLibc } from './libc';

const O_CLOEXEC = 0o2000000;
const O_NONBLOCK = 0o4000;
const F_SETFL = 4;
const F_SETPIPE_SZ = 1031;
const PIPE_BYTES = 1024 * 1024;

let libc: ReturnType<typeof load> | null = null;
function load() {
  return openLibc({
    pipe2: { args: ['ptr', 'i32'], returns: 'i32' },
    fcntl: { args: ['i32', 'i32', 'i32'], returns: 'i32' },
  });
}

/** A new pipe's ends as file descriptors; throws when the C library or the kernel refuses one. */
export function openPipe(): { read: number; write: number } {
  libc ??= load();
  const fds = new Int32Array(2);
  if (libc.pipe2(ptr(fds), O_CLOEXEC) !== 0) throw new Error('pipe2 failed');
  const [read, write] = [fds[0] as number, fds[1] as number];
  // A larger pipe means fewer wake-ups; the default (64 KiB) still works when it is refused.
  libc.fcntl(write, F_SETPIPE_SZ, PIPE_BYTES);
  libc.fcntl(write, F_SETFL, O_NONBLOCK);
  return { read, write };
}
