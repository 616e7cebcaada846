/**
 * Where object content lives on disk (§12): `<dataDir>/media/<bucket>/<_id>-<sha256>`, one file per
 * content version, and `<dataDir>/media/.parts/` for uploads in progress. A version's file is written
 * whole (part file, flushed, renamed) before the row names it, and the previous version's file is
 * removed only after the row moved on, and a grace period later (`retireFile`), so a reader always
 * finds the file its row names and a power cut leaves either version whole. What a cut leaves behind (a part file, a renamed file no row
 * names) is removed by `sweepMedia` at start-up.
 */
import { mkdirSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { Deps } from '../../deps';

export const BUCKETS = ['cms-media', 'backups', 'branding'] as const;
export type Bucket = (typeof BUCKETS)[number];
/** The only bucket this API writes; the others hold platform files (§17, §18). */
export const MEDIA_BUCKET: Bucket = 'cms-media';

export const isBucket = (name: string): name is Bucket => (BUCKETS as readonly string[]).includes(name);

export function mediaDir(deps: Deps): string {
  return join(deps.config.dataDir, 'media');
}

export function bucketDir(deps: Deps, bucket: string): string {
  return join(mediaDir(deps), bucket);
}

export function partsDir(deps: Deps): string {
  return join(mediaDir(deps), '.parts');
}

/** The stored file name of one content version. */
export const contentFileName = (id: number, sha256: string): string => `${id}-${sha256}`;

export function contentPath(deps: Deps, row: { bucket: string; file: string | null }): string | null {
  return row.file === null ? null : join(bucketDir(deps, row.bucket), row.file);
}

/** Creates the media directories when missing. */
export function ensureMediaDirs(deps: Deps): void {
  mkdirSync(partsDir(deps), { recursive: true });
  for (const bucket of BUCKETS) mkdirSync(bucketDir(deps, bucket), { recursive: true });
}

/**
 * How long a replaced or purged version's file stays after its row moved on: an answer built from the
 * row a moment earlier opens it after that (download.ts), and once open it is read whole.
 */
export const RETIRE_GRACE_MS = 10_000;

/**
 * Marks a version's file for removal once RETIRE_GRACE_MS has passed (`removeRetired`). The grace is
 * monotonic time: a step of the wall clock ahead does not remove a file an answer is about to open,
 * and a step back does not keep replaced versions on the disk for hours.
 */
export function retireFile(deps: Deps, path: string): void {
  deps.objects.retired.set(path, deps.clock.monotonic());
}

/** Removes the retired files whose grace is over (all of them with `all`); how many. */
export function removeRetired(deps: Deps, all = false): number {
  const cutoff = deps.clock.monotonic() - RETIRE_GRACE_MS;
  let removed = 0;
  for (const [path, at] of deps.objects.retired) {
    if (!all && at > cutoff) continue;
    removeFile(path);
    deps.objects.retired.delete(path);
    removed++;
  }
  return removed;
}

/** Removes a file; a file already gone is no failure. */
export function removeFile(path: string): void {
  rmSync(path, { force: true });
}

/**
 * At start-up: removes every part file and every content file that no row names (a cut between the
 * rename and the commit, or between the commit and the old version's removal). Returns how many.
 */
export function sweepMedia(deps: Deps, named: ReadonlySet<string>): number {
  ensureMediaDirs(deps);
  let removed = 0;
  for (const name of readdirSync(partsDir(deps))) {
    removeFile(join(partsDir(deps), name));
    removed++;
  }
  for (const bucket of BUCKETS) {
    // Archives are no object's content: the backups module keeps that folder (modules/backups/files.ts).
    if (bucket === 'backups') continue;
    const dir = bucketDir(deps, bucket);
    for (const name of readdirSync(dir)) {
      if (named.has(join(bucket, name))) continue;
      removeFile(join(dir, name));
      removed++;
    }
  }
  return removed;
}
