/**
 * Backups (§17). Reads `backups:read`; every change `backups:write`; a restore also
 * `backups:restore`. Starting work answers 202 with the backup, whose `job` reports progress.
 *
 * Decision where §0.3 and §17 disagree with the secrets rule (C: Errors, §18 rule 2): the download
 * needs `backups:write`, not `backups:read`. An archive holds the whole database (the webhook secrets
 * in the clear, every password hash, the SMTP password, the licence), so a read-only credential (the
 * built-in viewer and operator roles hold `backups:read`) must not carry it away; as token reads need
 * `users:write` (§1.4), the sensitive read needs the write permission. Reading records stays `backups:read`.
 */
import { type Elysia, t } from 'elysia';
import type { Deps } from '../../deps';
import { IdParam } from '../../http/fields';
import { pageOf, sendList } from '../../http/lists';
import { noContent } from '../../http/responses';
import { routeGroup } from '../../http/route-group';
import { downloadBackup } from './download';
import { startBackup } from './make';
import { BackupModel } from './model';
import { startRestore } from './restore';
import { backupNamedBy, deleteBackup, getBackup, listBackups, updateBackup } from './service';
import { receiveBackup } from './upload';
import { startVerify } from './verify';

const READ = 'backups:read' as const;
const WRITE = 'backups:write' as const;
const BINARY = { type: 'string', format: 'binary' } as const;

interface SetContext {
  status?: number | string;
  headers: Record<string, string | number>;
}

/** 202 with `Location` naming the backup whose job reports progress. */
function accepted<T extends { _links: { self: string } }>(set: SetContext, backup: T): T {
  set.status = 202;
  set.headers.location = backup._links.self;
  return backup;
}

/**
 * The plugin's route types are erased at this boundary, as the schedule's are (modules/schedule/routes.ts):
 * carried into the app's one long `.use()` chain they pass TypeScript's instantiation depth, and
 * nothing reads them there (tests and clients go through HTTP).
 */
export function backupsRoutes(deps: Deps): Elysia {
  const upsert = {
    auth: WRITE,
    body: BackupModel.upsert,
    response: { 200: BackupModel.dto, 202: BackupModel.dto },
    detail: {
      summary:
        'With the _id of a stored backup, update displayName, description and keep; otherwise start a backup (202)',
    },
  };
  const runUpsert = ({
    principal,
    body,
    set,
  }: {
    principal: Parameters<typeof updateBackup>[1];
    body: typeof BackupModel.upsert.static;
    set: SetContext;
  }) => {
    const { _id, includeMedia, ...fields } = body;
    const existing = backupNamedBy(deps, _id);
    if (existing) return updateBackup(deps, principal, existing.id, fields);
    return accepted(set, startBackup(deps, principal, { ...fields, includeMedia }, 'manual'));
  };
  const routes = routeGroup('/backups')
    .get(
      '/',
      (ctx) => {
        const page = pageOf(ctx.query);
        return sendList(ctx, listBackups(deps, ctx.query, page), page);
      },
      {
        auth: READ,
        query: BackupModel.listQuery,
        response: BackupModel.list,
        detail: { summary: 'Backups, newest first' },
      },
    )
    .post('/', runUpsert, upsert)
    .put('/', runUpsert, upsert)
    .post('/createBackup', ({ principal, body, set }) => accepted(set, startBackup(deps, principal, body, 'manual')), {
      auth: WRITE,
      body: BackupModel.create,
      response: { 202: BackupModel.dto },
      detail: { summary: 'Start a backup' },
    })
    .post(
      '/upload',
      async ({ principal, request, query, set }) => accepted(set, await receiveBackup(deps, principal, request, query)),
      {
        auth: { permission: WRITE, body: 'stream' },
        query: BackupModel.uploadQuery,
        response: { 202: BackupModel.dto },
        detail: {
          summary: 'Upload an archive (raw body); it is verified at once',
          requestBody: { content: { 'application/octet-stream': { schema: BINARY } } },
        },
      },
    )
    .get('/:id', ({ params }) => getBackup(deps, params.id), {
      auth: READ,
      params: IdParam,
      response: BackupModel.dto,
      detail: { summary: 'A backup (also answered during its restore)' },
    })
    .patch('/:id', ({ principal, params, body }) => updateBackup(deps, principal, params.id, body), {
      auth: WRITE,
      params: IdParam,
      body: BackupModel.update,
      response: BackupModel.dto,
      detail: { summary: 'Update displayName, description and keep' },
    })
    .delete(
      '/:id',
      ({ principal, params, query, set }) => {
        deleteBackup(deps, principal, params.id, query.force === 'true');
        noContent(set);
      },
      {
        auth: WRITE,
        params: IdParam,
        query: BackupModel.deleteQuery,
        detail: { summary: 'Delete the archive and its record' },
      },
    )
    .get('/:id/download', ({ params }) => downloadBackup(deps, params.id), {
      auth: WRITE,
      params: IdParam,
      response: { 200: t.Unknown() },
      detail: {
        summary: 'Download the archive (needs backups:write: it holds the whole database, secrets included)',
        responses: { 200: { description: 'the archive', content: { 'application/octet-stream': { schema: BINARY } } } },
      },
    })
    .put('/:id/verify', ({ principal, params, set }) => accepted(set, startVerify(deps, principal, params.id)), {
      auth: WRITE,
      params: IdParam,
      response: { 202: BackupModel.dto },
      detail: { summary: 'Verify the archive again' },
    })
    .put(
      '/:id/restore',
      async ({ principal, params, body, set }) => accepted(set, await startRestore(deps, principal, params.id, body)),
      {
        auth: 'backups:restore',
        params: IdParam,
        body: BackupModel.restore,
        response: { 202: BackupModel.dto },
        detail: { summary: 'Restore this backup (needs backups:write as well as backups:restore)' },
      },
    );
  return routes as unknown as Elysia;
}
