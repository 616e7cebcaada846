/**
 * The work of the backup thread, as messages: pack an archive, read one (verify), unpack one into a
 * staging folder and bring its database to this build's schema (restore), or test a passphrase.
 * Plain data in and out, so it runs the same on the thread (worker.ts) or, where no thread can be
 * started, on the calling one (thread.ts).
 */
import { closeSync, openSync, readSync } from 'node:fs';
import { FIRST_CHUNK_BYTES, passphraseOpens } from './archive/crypt';
import { migrateStaged } from './archive/database';
import { type Packed, type PackSpec, packArchive } from './archive/pack';
import { type ReadResult, type ReadSpec, readArchive, stagedPath } from './archive/read';

export type TaskRequest =
  | { op: 'pack'; spec: PackSpec }
  | { op: 'read'; spec: ReadSpec }
  | { op: 'stage'; spec: ReadSpec; now: number }
  | { op: 'passphrase'; path: string; passphrase: string };

export type TaskResult = Packed | ReadResult | boolean;

export type TaskAnswer = { ready: true } | { progress: number } | { result: TaskResult } | { error: string };

function head(path: string, n: number): Buffer {
  const fd = openSync(path, 'r');
  try {
    const buf = Buffer.alloc(n);
    return buf.subarray(0, readSync(fd, buf, 0, n, 0));
  } finally {
    closeSync(fd);
  }
}

export async function runTask(task: TaskRequest, progress: (fraction: number) => void): Promise<TaskResult> {
  switch (task.op) {
    case 'pack':
      return packArchive(task.spec, progress);
    case 'read':
      return readArchive(task.spec, progress);
    case 'stage': {
      const read = await readArchive({ ...task.spec, unpack: true }, progress);
      if (read.problems.length > 0) return read;
      try {
        migrateStaged(stagedPath(task.spec.staging, 'db.sqlite'), task.now);
      } catch (err) {
        const problem = err as { code?: string; member?: string | null; message: string };
        read.problems.push({
          code: problem.code === 'integrity_failed' ? 'integrity_failed' : 'incompatible_schema',
          member: 'db.sqlite',
          message: `the database cannot be brought to this build's schema: ${problem.message}`,
        });
      }
      return read;
    }
    case 'passphrase':
      return passphraseOpens(head(task.path, FIRST_CHUNK_BYTES), task.passphrase);
  }
}
