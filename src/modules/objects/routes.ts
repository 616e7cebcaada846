/**
 * Objects and cms-media (§12). One path segment after `/objects` is an `_id` when it is all digits and
 * a bucket otherwise (object names are never all digits), so `GET /objects/7` reads object 7 and
 * `GET /objects/cms-media` lists the bucket.
 *
 * `GET /objects/{id}/content` takes `media:read`, or instead the signed query of `_links.get`
 * (display players are browsers that cannot send a credential): the `signedLink` rule of the auth
 * macro lets a signed request past the credential check, and the handler verifies the signature.
 * A download naming a player (`?player=`, `x-player-id`) counts toward its copies (§12 rule 6,
 * playables/copy-downloads.ts).
 */
import { t } from 'elysia';
import type { Deps } from '../../deps';
import { unauthorized } from '../../http/errors';
import { numericId } from '../../http/fields';
import { originOf } from '../../http/links';
import { metadataFilterOf, PageQuery, pageOf, paginate, sendList } from '../../http/lists';
import { created, noContent } from '../../http/responses';
import { routeGroup } from '../../http/route-group';
import { attributedPlayer, recordReceived } from '../playables/copy-downloads';
import { serveContent } from './download';
import { validSignature } from './links';
import type { ObjectRow } from './mapper';
import { ObjectModel } from './model';
import {
  bucketTags,
  createObject,
  deleteObject,
  listBuckets,
  listObjects,
  objectRowByName,
  readObject,
  requireObject,
  requireObjectByName,
  requireObjectName,
  requireWritableBucket,
  restoreObject,
  updateObject,
} from './service';
import { attachContent, discard, receiveUpload, withUploadSlot } from './upload';

const READ = 'media:read' as const;
const WRITE = 'media:write' as const;
const UPLOAD = { permission: WRITE, body: 'stream' } as const;
const BINARY = { type: 'string', format: 'binary' } as const;

const truthy = (flag: string | undefined): boolean => flag === 'true';

/** `PUT /objects/{id}/content`: receives the bytes, then attaches them (the part file removed on failure). */
async function upload(deps: Deps, principal: Parameters<typeof attachContent>[1], row: ObjectRow, request: Request) {
  return withUploadSlot(deps, row.id, async () => {
    const content = await receiveUpload(deps, request, row);
    try {
      return attachContent(deps, principal, row, content);
    } catch (err) {
      await discard(content);
      throw err;
    }
  });
}

export function objectsRoutes(deps: Deps) {
  const updateRoute = {
    auth: WRITE,
    params: ObjectModel.idParams,
    body: ObjectModel.update,
    response: ObjectModel.dto,
    detail: { summary: 'Update displayName, description, tags and user metadata' },
  };
  return routeGroup('/objects')
    .get(
      '/',
      (ctx) => {
        const page = pageOf(ctx.query);
        return sendList(ctx, paginate(listBuckets(deps), page), page);
      },
      {
        auth: READ,
        query: t.Object(PageQuery),
        response: ObjectModel.buckets,
        detail: { summary: 'The buckets with their object count and size' },
      },
    )
    .get(
      '/:id',
      (ctx) => {
        const { params, query, request } = ctx;
        if (numericId(params.id) !== null) return readObject(deps, requireObject(deps, params.id), originOf(request));
        const page = pageOf(query);
        const result = listObjects(deps, params.id, query, metadataFilterOf(request.url), page, originOf(request));
        return sendList(ctx, result, page);
      },
      {
        auth: READ,
        params: ObjectModel.idParams,
        query: ObjectModel.listQuery,
        response: t.Union([ObjectModel.dto, ObjectModel.list]),
        detail: {
          summary:
            'An object by _id (all digits), or the objects of a bucket (filters status, tags, metadata[key], fuzzy)',
        },
      },
    )
    .get(
      '/:id/_tags',
      (ctx) => {
        const page = pageOf(ctx.query);
        return sendList(ctx, paginate(bucketTags(deps, ctx.params.id), page), page);
      },
      {
        auth: READ,
        params: ObjectModel.idParams,
        query: t.Object(PageQuery),
        response: ObjectModel.tags,
        detail: { summary: "The tags of a bucket's objects with their counts" },
      },
    )
    .get(
      '/:id/:name',
      ({ params, request }) => readObject(deps, requireObjectByName(deps, params.id, params.name), originOf(request)),
      {
        auth: READ,
        params: ObjectModel.nameParams,
        response: ObjectModel.dto,
        detail: { summary: 'An object by bucket and name' },
      },
    )
    .post(
      '/:id',
      ({ principal, params, body, request, set }) =>
        created(set, readObject(deps, createObject(deps, principal, params.id, body), originOf(request))),
      {
        auth: WRITE,
        params: ObjectModel.idParams,
        body: ObjectModel.create,
        response: { 201: ObjectModel.dto },
        detail: { summary: 'Create an object record (no content yet), optionally with the expected sha256' },
      },
    )
    .put(
      '/:id/content',
      async ({ principal, params, request }) => {
        const row = requireObject(deps, params.id);
        requireWritableBucket(row.bucket);
        return readObject(deps, await upload(deps, principal, row, request), originOf(request));
      },
      {
        auth: UPLOAD,
        params: ObjectModel.idParams,
        response: ObjectModel.dto,
        detail: {
          summary:
            "Upload an object's content (raw body, Content-Length required; Content-MD5 / x-checksum-sha256 checked)",
        },
      },
    )
    .put(
      '/:id/:name/content',
      async ({ principal, params, request, set }) => {
        requireWritableBucket(params.id);
        requireObjectName(params.name);
        const existing = objectRowByName(deps, params.id, params.name);
        if (existing) return readObject(deps, await upload(deps, principal, existing, request), originOf(request));
        // Judged and received before the record exists, so a refused or cut-off upload leaves nothing.
        const content = await receiveUpload(deps, request, null);
        try {
          const row = createObject(deps, principal, params.id, { name: params.name });
          return created(set, readObject(deps, attachContent(deps, principal, row, content), originOf(request)));
        } catch (err) {
          await discard(content);
          throw err;
        }
      },
      {
        auth: UPLOAD,
        params: ObjectModel.nameParams,
        response: { 200: ObjectModel.dto, 201: ObjectModel.dto },
        detail: { summary: 'Create or replace an object with its content in one request (raw body)' },
      },
    )
    .put(
      '/:id',
      ({ principal, params, body, request }) =>
        readObject(deps, updateObject(deps, principal, params.id, body), originOf(request)),
      updateRoute,
    )
    .patch(
      '/:id',
      ({ principal, params, body, request }) =>
        readObject(deps, updateObject(deps, principal, params.id, body), originOf(request)),
      updateRoute,
    )
    .delete(
      '/:id',
      ({ principal, params, query, set }) => {
        deleteObject(deps, principal, params.id, { purge: truthy(query.purge), force: truthy(query.force) });
        noContent(set);
      },
      {
        auth: WRITE,
        params: ObjectModel.idParams,
        query: ObjectModel.deleteQuery,
        detail: { summary: 'Move an object to the trash; purge=true removes it now; force=true even when in use' },
      },
    )
    .post(
      '/:id/restore',
      ({ principal, params, request }) =>
        readObject(deps, restoreObject(deps, principal, params.id), originOf(request)),
      {
        auth: WRITE,
        params: ObjectModel.idParams,
        response: ObjectModel.dto,
        detail: { summary: 'Bring an object back from the trash' },
      },
    )
    .get(
      '/:id/content',
      ({ params, query, request, signed }) => {
        const id = numericId(params.id);
        if (signed) {
          if (id === null || !validSignature(deps, id, query.expires ?? '', query.signature ?? '')) {
            throw unauthorized('the link is invalid or has expired; read the object again for a fresh one');
          }
        } else if (id === null) {
          // `/objects/<bucket>/content` is the record of an object named "content", not a download.
          return readObject(deps, requireObjectByName(deps, params.id, 'content'), originOf(request));
        }
        const row = requireObject(deps, params.id);
        const player = attributedPlayer(deps, request, query.player);
        if (player === null || row.sha256 === null) return serveContent(deps, row, request);
        const version = { id: row.id, sha256: row.sha256 };
        return serveContent(deps, row, request, (start, sent) => {
          void recordReceived(deps, player, version, start, sent);
        });
      },
      {
        signedLink: READ,
        params: ObjectModel.idParams,
        query: ObjectModel.contentQuery,
        detail: {
          summary:
            "Download an object's content (Range, ETag); needs media:read, or the signed query of its _links.get; player=<externalId> (or x-player-id) counts it toward that player's copies",
          responses: {
            200: { description: 'The whole content', content: { 'application/octet-stream': { schema: BINARY } } },
            206: { description: 'One byte range of it', content: { 'application/octet-stream': { schema: BINARY } } },
            304: { description: 'Not modified (If-None-Match or If-Modified-Since)' },
            416: { description: 'The range lies past the end (`range_not_satisfiable`)' },
          },
        },
      },
    );
}
