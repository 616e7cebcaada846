/**
 * `POST /backups/upload` (§17): an archive as the raw body. Judged before the first byte is read:
 * the credential (the route), `Content-Length` (required: 400), `backups.maxUploadBytes` (413), free
 * space for it plus 10 % (507) and the job slot (409, held from here until its verify ends). The body
 * streams into a part file under the bucket's `.parts/`, one chunk in memory at a time; a body cut
 * off or longer than declared, or a full disk, removes it and leaves nothing. Then it is flushed,
 * renamed into the bucket and its record made (`uploaded`, `running`), and the verify job starts at
 * once; the answer is 202. An archive that fails its verify is deleted and its record stays `failed`
 * with the problems (verify.ts).
 *
 * Decisions where §17 is silent: `?displayName=` and `?description=` name the upload (default
 * `uploaded-<local date and time>`); whether it is encrypted is judged by its first bytes.
 */
import { randomUUID } from 'node:crypto';
import { existsSync, renameSync } from 'node:fs';
import { open, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { Principal } from '../../core/principal';
import { getSettingGroup, getTimezone } from '../../core/settings';
import { backups } from '../../db/schema';
import type { Deps } from '../../deps';
import { syncDir } from '../../files';
import { tooLarge } from '../../http/body';
import { AppError, badRequest, bodyCutOff, isDiskFull } from '../../http/errors';
import { emit, transact } from '../../realtime/emit';
import { localString } from '../schedule/engine/tz';
import { isEncrypted } from './archive/crypt';
import { archiveName } from './archive/format';
import { archivePath, backupsDir, ensureBackupDirs, removeArchive, uploadsDir } from './files';
import { launchJob, newJob } from './job';
import { backupDto } from './mapper';
import type { BackupDto } from './model';
import { auditJob, requireNoJob } from './service';
import { verifyWork } from './verify';

const insufficient = (message: string) => new AppError('insufficient_storage', message);

function admit(deps: Deps, request: Request): number {
  const raw = request.headers.get('content-length');
  if (raw === null || !/^[0-9]{1,16}$/.test(raw.trim()))
    throw badRequest('Content-Length is required: send the archive with its length, not chunked');
  const length = Number(raw.trim());
  const cap = getSettingGroup(deps, 'backups').maxUploadBytes;
  if (length > cap) throw tooLarge(cap);
  ensureBackupDirs(deps);
  if (deps.objects.freeBytes(backupsDir(deps)) < length * 1.1)
    throw insufficient('not enough free disk space for this archive; nothing was stored');
  return length;
}

/** Streams the body into `part`; its first bytes. Throws (the part removed) when it is cut off or too long. */
async function receive(request: Request, part: string, length: number): Promise<Uint8Array> {
  const file = await open(part, 'wx', 0o600);
  let size = 0;
  let head = new Uint8Array(0);
  try {
    if (request.body) {
      for await (const chunk of request.body) {
        size += chunk.byteLength;
        if (size > length) throw badRequest('the body is longer than its Content-Length');
        if (head.byteLength < 8) head = new Uint8Array([...head, ...chunk.subarray(0, 8 - head.byteLength)]);
        let written = 0;
        while (written < chunk.byteLength) written += (await file.write(chunk, written)).bytesWritten;
      }
    }
    if (size !== length) throw badRequest(`the body ended after ${size} of ${length} bytes; nothing was stored`);
    await file.sync();
    return head;
  } catch (err) {
    await file.close().catch(() => {});
    await rm(part, { force: true });
    if (isDiskFull(err)) throw insufficient('the disk filled during the upload; nothing was stored');
    throw bodyCutOff(err) ?? err;
  } finally {
    await file.close().catch(() => {});
  }
}

/** Runs `store`; when it throws, the archive it was to record is removed. */
function keepOnlyIfStored<T>(deps: Deps, object: string, store: () => T): T {
  try {
    return store();
  } catch (err) {
    removeArchive(deps, object);
    throw err;
  }
}

export async function receiveBackup(
  deps: Deps,
  principal: Principal,
  request: Request,
  query: { displayName?: string; description?: string },
): Promise<BackupDto> {
  requireNoJob(deps);
  const length = admit(deps, request);
  // The slot is held while the bytes arrive, then handed to the verify job.
  let release = () => {};
  const reservation = randomUUID();
  deps.backups.running = {
    backupId: 0,
    jobId: reservation,
    type: 'verify',
    done: new Promise<void>((resolve) => {
      release = resolve;
    }),
  };
  const part = join(uploadsDir(deps), `${reservation}.part`);
  try {
    const head = await receive(request, part, length);
    const now = deps.clock.now();
    const displayName = query.displayName?.trim() || `uploaded-${localString(getTimezone(deps), now)}`;
    let object = archiveName(displayName, now, isEncrypted(head));
    if (existsSync(archivePath(deps, object)))
      object = object.replace(/\.tar\.gz/, `-${reservation.slice(0, 8)}.tar.gz`);
    renameSync(part, archivePath(deps, object));
    syncDir(backupsDir(deps));
    const job = newJob(deps, 'verify');
    const row = keepOnlyIfStored(deps, object, () =>
      transact(deps, () => {
        const inserted = deps.db
          .insert(backups)
          .values({
            displayName,
            description: query.description ?? '',
            includeMedia: false,
            keep: false,
            type: 'uploaded',
            status: 'running',
            job,
            object,
            objectSize: length,
            encrypted: isEncrypted(head),
            createdAt: now,
            updatedAt: now,
          })
          .returning()
          .get();
        emit(deps, 'backup.created', { _id: inserted.id, changed: [] });
        auditJob(deps, principal, 'uploaded', inserted);
        return inserted;
      }),
    );
    deps.backups.running = null;
    launchJob(deps, row, job, (ctx) => verifyWork(deps, row.id, ctx));
    return backupDto(row);
  } finally {
    await rm(part, { force: true });
    if (deps.backups.running?.jobId === reservation) deps.backups.running = null;
    release();
  }
}
