/** Backup rows → wire (§17); the only such mapping. */
import { iso, isoOrNull } from '../../clock';
import type { BackupJob, backups } from '../../db/schema';
import { entityMeta } from '../../http/entity';
import { selfLink } from '../../http/links';
import type { BackupDto } from './model';

export type BackupRow = typeof backups.$inferSelect;

const jobDto = (job: BackupJob) => ({
  ...job,
  startedAt: isoOrNull(job.startedAt),
  finishedAt: isoOrNull(job.finishedAt),
});

export function backupDto(row: BackupRow): BackupDto {
  return {
    ...entityMeta(row, 'backups', { object: `${selfLink('backups', row.id)}/download` }),
    _links: { self: selfLink('backups', row.id), object: `${selfLink('backups', row.id)}/download` },
    displayName: row.displayName,
    description: row.description,
    includeMedia: row.includeMedia,
    keep: row.keep,
    type: row.type,
    status: row.status,
    job: row.job ? jobDto(row.job) : null,
    jobId: row.job?.id ?? null,
    bucket: 'backups',
    object: row.object,
    objectSize: row.objectSize,
    sha256: row.sha256,
    encrypted: row.encrypted,
    schemaVersion: row.schemaVersion,
    productVersion: row.productVersion,
    isValid: row.isValid,
    lastTimeVerified: isoOrNull(row.lastTimeVerified),
    verifyResult: row.verifyResult ? { ...row.verifyResult, checkedAt: iso(row.verifyResult.checkedAt) } : null,
    isInFtp: false,
    updatedAt: iso(row.updatedAt),
    __v: 0,
  };
}

/** What backup events carry beyond `_id` (§21): `type`, `isValid`, `job`, and the name alerts show. */
export function backupEventData(row: BackupRow): Record<string, unknown> {
  return {
    _id: row.id,
    displayName: row.displayName,
    type: row.type,
    isValid: row.isValid,
    job: row.job ? jobDto(row.job) : null,
  };
}
