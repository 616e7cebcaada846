/**
 * Small files that must survive a power cut whole (base layer: node:fs only). A rename is atomic,
 * but only a flushed file and a flushed directory make it last: `writeFileDurably` writes a
 * temporary name, flushes it, renames it over the target and flushes the directory, so a cut leaves
 * the old content or the new, never a mix. The settings, licence, backups and host-action records
 * all write this way; larger content (uploads, archives) streams into a part file and uses `syncDir`
 * after its own rename.
 */
import { closeSync, fsyncSync, mkdirSync, openSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

/** Flushes a directory's entries (a rename into it) to disk. */
export function syncDir(dir: string): void {
  const fd = openSync(dir, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** Writes `content` to `path` (mode 0600, its directory made 0700 if missing) so a power cut leaves the old or the new file whole. */
export function writeFileDurably(path: string, content: string | Uint8Array): void {
  const dir = dirname(path);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const part = `${path}.part`;
  const fd = openSync(part, 'w', 0o600);
  try {
    writeFileSync(fd, content);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(part, path);
  syncDir(dir);
}
