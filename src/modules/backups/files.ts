/**
 * Where backups live on disk: archives in the `backups` bucket's folder
 * (`<dataDir>/media/backups/<object>`), each with a small record beside it (`<object>.json`, the
 * sidecar) so a restore of older data can list newer archives again (§17 rule 4.7); uploads in
 * progress in its `.parts/`; the thread's work folders (snapshots, verify staging) under
 * `<dataDir>/.backups-work/`; a restore's staging, the previous data and the swap plan under
 * `<dataDir>/.restore/` (swap.ts). Every folder is inside the data directory, so links and renames
 * stay on one file system. Archives leave the appliance only through `/backups/{id}/download`:
 * `/objects` never serves them (they hold the whole database, secrets included).
 */
import { mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { BackupJob, BackupVerifyResult } from '../../db/schema';
import type { Deps } from '../../deps';
import { writeFileDurably } from '../../files';
import { bucketDir } from '../objects/files';

export const backupsDir = (deps: Deps): string => bucketDir(deps, 'backups');
export const uploadsDir = (deps: Deps): string => join(backupsDir(deps), '.parts');
export const workRoot = (deps: Deps): string => join(deps.config.dataDir, '.backups-work');
export const archivePath = (deps: Deps, object: string): string => join(backupsDir(deps), object);
const sidecarPath = (deps: Deps, object: string): string => `${archivePath(deps, object)}.json`;

/** What the sidecar keeps of a record: enough to list the archive again after a restore. */
export interface Sidecar {
  /** The record's `_id`: a restore of a snapshot taken while this archive was made finds its record by it. */
  id: number;
  displayName: string;
  description: string;
  type: 'manual' | 'scheduled' | 'pre-restore' | 'pre-migration' | 'uploaded';
  includeMedia: boolean;
  keep: boolean;
  objectSize: number;
  sha256: string;
  encrypted: boolean;
  schemaVersion: number | null;
  productVersion: string | null;
  isValid: boolean | null;
  lastTimeVerified: number | null;
  verifyResult: BackupVerifyResult | null;
  scheduledFor: number | null;
  job: BackupJob | null;
  createdAt: number;
}

export function ensureBackupDirs(deps: Deps): void {
  mkdirSync(uploadsDir(deps), { recursive: true });
  mkdirSync(workRoot(deps), { recursive: true, mode: 0o700 });
}

export function writeSidecar(deps: Deps, object: string, sidecar: Sidecar): void {
  writeFileDurably(sidecarPath(deps, object), JSON.stringify(sidecar));
}

export function readSidecar(deps: Deps, object: string): Sidecar | null {
  try {
    const value = JSON.parse(readFileSync(sidecarPath(deps, object), 'utf8')) as Sidecar;
    return value && typeof value === 'object' && typeof value.sha256 === 'string' ? value : null;
  } catch {
    return null;
  }
}

/** Removes an archive and its sidecar; either already gone is no failure. */
export function removeArchive(deps: Deps, object: string): void {
  rmSync(archivePath(deps, object), { force: true });
  rmSync(sidecarPath(deps, object), { force: true });
}

/** A work folder of the thread's own, new and empty. */
export function workDir(deps: Deps, name: string): string {
  const dir = join(workRoot(deps), name);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  return dir;
}
