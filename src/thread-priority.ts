/**
 * Background threads yield the cores to the request thread (the backup thread, §17): on Linux the
 * nice value belongs to each thread, and `setpriority(PRIO_PROCESS, 0, n)` sets the calling thread's
 * only (setpriority(2), NOTES). Reached through bun:ffi (libc.ts).
 * Raising one's own nice value needs no privilege; where it cannot be done (no libc, another system)
 * the thread runs as it is.
 */
import { FFIType } from 'bun:ffi';
import { openLibc } from './libc';

const PRIO_PROCESS = 0;

function libc() {
  const symbols = {
    setpriority: { args: [FFIType.i32, FFIType.u32, FFIType.i32], returns: FFIType.i32 },
    getpriority: { args: [FFIType.i32, FFIType.u32], returns: FFIType.i32 },
  } as const;
  try {
    return openLibc(symbols);
  } catch {
    return null;
  }
}

/** Sets the calling thread's nice value (0 normal, 19 the lowest); whether it was applied. */
export function niceThisThread(nice: number): boolean {
  if (process.platform !== 'linux') return false;
  const c = libc();
  return c !== null && c.setpriority(PRIO_PROCESS, 0, nice) === 0;
}

/** The calling thread's nice value, or null where it cannot be read. */
export function threadNice(): number | null {
  if (process.platform !== 'linux') return null;
  const c = libc();
  return c === null ? null : c.getpriority(PRIO_PROCESS, 0);
}
