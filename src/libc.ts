/**
 * The C library through bun:ffi, for the few calls JavaScript cannot make: datagrams to systemd
 * (systemd/notify.ts) and a thread's own priority (thread-priority.ts). Linux only; no child process.
 */
import { dlopen, type FFIFunction, type Library } from 'bun:ffi';

/** The C library's `symbols`, from the first of its usual names that loads; throws with what each said. */
export function openLibc<S extends Record<string, FFIFunction>>(symbols: S): Library<S>['symbols'] {
  const tried: string[] = [];
  for (const name of ['libc.so.6', 'libc.so']) {
    try {
      return dlopen(name, symbols).symbols;
    } catch (err) {
      tried.push(`${name}: ${(err as Error).message}`);
    }
  }
  throw new Error(tried.join('; '));
}
