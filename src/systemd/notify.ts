/**
 * sd_notify(3) from the daemon itself (Type=notify): `READY=1`, `STOPPING=1`, `STATUS=…` and
 * `WATCHDOG=1` as datagrams on the unix socket systemd names in `NOTIFY_SOCKET`. Bun has no unix
 * datagram socket in JavaScript, so libc's socket(2) and sendto(2) are called through bun:ffi: one
 * socket for the life of the process, one `sendto` per message, no child process.
 *
 * Messages are sent with MSG_DONTWAIT: when systemd's queue is full the send fails at once (EAGAIN)
 * instead of blocking the event loop; a lost watchdog ping is sent again at the next tick.
 */
import { FFIType, read } from 'bun:ffi';
import { openLibc } from '../libc';

/** Notification is configured (NOTIFY_SOCKET is set) but cannot work; main prints it and exits 2. */
export class NotifyError extends Error {}

export interface Notifier {
  /** Where the messages go, as NOTIFY_SOCKET named it. */
  readonly target: string;
  /** Sends one message (`KEY=value` lines); throws NotifyError when the kernel refuses it. */
  send(state: string): void;
  close(): void;
}

const AF_UNIX = 1;
const SOCK_DGRAM = 2;
const SOCK_CLOEXEC = 0o2000000;
const MSG_DONTWAIT = 0x40;
const MSG_NOSIGNAL = 0x4000;
/** sizeof(struct sockaddr_un): a 2-byte family and 108 bytes of path. */
const SOCKADDR_UN_BYTES = 110;
const SUN_PATH_BYTES = 108;

const ERRNO_NAMES: Record<number, string> = {
  1: 'EPERM (operation not permitted)',
  2: 'ENOENT (no such socket)',
  11: 'EAGAIN (systemd is not reading its queue)',
  13: 'EACCES (permission denied)',
  20: 'ENOTDIR (a part of the path is not a directory)',
  24: 'EMFILE (too many open files)',
  36: 'ENAMETOOLONG (path too long)',
  90: 'EMSGSIZE (message too long)',
  97: 'EAFNOSUPPORT (unix sockets not supported)',
  105: 'ENOBUFS (no buffer space)',
  111: 'ECONNREFUSED (nobody is listening on it)',
};

function libc() {
  const symbols = {
    socket: { args: [FFIType.i32, FFIType.i32, FFIType.i32], returns: FFIType.i32 },
    sendto: {
      args: [FFIType.i32, FFIType.ptr, FFIType.u64, FFIType.i32, FFIType.ptr, FFIType.u32],
      returns: FFIType.i64,
    },
    close: { args: [FFIType.i32], returns: FFIType.i32 },
    __errno_location: { args: [], returns: FFIType.ptr },
  } as const;
  try {
    return openLibc(symbols);
  } catch (err) {
    throw new NotifyError(`cannot load the C library to reach systemd (${(err as Error).message})`);
  }
}

type Libc = ReturnType<typeof libc>;

function errnoText(c: Libc): string {
  const at = c.__errno_location();
  const errno = at === null ? 0 : read.i32(at, 0);
  return ERRNO_NAMES[errno] ?? `errno ${errno}`;
}

/**
 * The `struct sockaddr_un` of a NOTIFY_SOCKET value and its length: a path (`/run/systemd/notify`,
 * NUL-terminated) or an abstract name (`@name`, the `@` sent as a NUL byte and nothing after the name).
 */
export function socketAddress(target: string): { bytes: Uint8Array; length: number } {
  if (!target.startsWith('/') && !target.startsWith('@'))
    throw new NotifyError(
      `NOTIFY_SOCKET=${target} is not a unix socket path or @abstract name, the only kinds pmsd can reach`,
    );
  const name = new TextEncoder().encode(target);
  const abstract = target.startsWith('@');
  if (name.length > (abstract ? SUN_PATH_BYTES : SUN_PATH_BYTES - 1))
    throw new NotifyError(`NOTIFY_SOCKET is longer than a unix socket address can be (${name.length} bytes)`);
  const bytes = new Uint8Array(SOCKADDR_UN_BYTES);
  new DataView(bytes.buffer).setUint16(0, AF_UNIX, true);
  bytes.set(name, 2);
  if (abstract) bytes[2] = 0;
  return { bytes, length: 2 + name.length + (abstract ? 0 : 1) };
}

/** Opens the socket the messages leave by; throws NotifyError when that is impossible. */
export function unixDatagramNotifier(target: string): Notifier {
  const address = socketAddress(target);
  const c = libc();
  const fd = c.socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  if (fd < 0) throw new NotifyError(`cannot open a unix datagram socket: ${errnoText(c)}`);
  let open = true;
  return {
    target,
    send(state) {
      if (!open) throw new NotifyError('the notification socket is closed');
      const message = new TextEncoder().encode(state);
      const sent = Number(
        c.sendto(fd, message, message.length, MSG_NOSIGNAL | MSG_DONTWAIT, address.bytes, address.length),
      );
      if (sent < 0) throw new NotifyError(`cannot send to NOTIFY_SOCKET=${target}: ${errnoText(c)}`);
    },
    close() {
      if (!open) return;
      open = false;
      c.close(fd);
    },
  };
}
