/**
 * `GET /backups/{id}/download` (§17 rule 7): the archive as a file body (`Bun.file`), which Bun sends
 * from the file itself and stops reading when the client goes away; never held in memory. 409 until
 * the backup is complete; 404 when its file is gone.
 */
import { existsSync } from 'node:fs';
import type { Deps } from '../../deps';
import { conflict, notFound } from '../../http/errors';
import { archivePath } from './files';
import { requireBackup } from './service';

export function downloadBackup(deps: Deps, id: string): Response {
  const row = requireBackup(deps, id);
  if (row.status !== 'complete' || row.object === null)
    throw conflict(`backup ${row.id} is ${row.status}; only a complete backup can be downloaded`);
  const path = archivePath(deps, row.object);
  if (!existsSync(path)) throw notFound('archive of backup', row.id);
  const file = Bun.file(path);
  return new Response(file, {
    status: 200,
    headers: {
      'content-type': 'application/octet-stream',
      'content-length': String(file.size),
      'content-disposition': `attachment; filename*=UTF-8''${encodeURIComponent(row.object)}`,
      'x-content-type-options': 'nosniff',
      'cache-control': 'private, no-store',
      ...(row.sha256 ? { etag: `"${row.sha256}"` } : {}),
    },
  });
}
