/**
 * The API description (C: Base and ports): `GET /api/v1/openapi.json` and the `/docs` page, both public.
 * The document describes the app these routes are part of, so it is built from the final route table
 * on the first request (through `routes`) and kept: the table does not change once the app is built.
 */
import { Elysia, t } from 'elysia';
import type { Deps } from '../../deps';
import { authPlugin } from '../../http/auth';
import { notFound } from '../../http/errors';
import { API_PREFIX } from '../../http/links';
import { type OpenApiDocument, openApiDocument, type RouteLike } from '../../http/openapi';
import { DOCS_ASSETS, DOCS_PAGE } from './assets';

const OpenApiModel = t.Object(
  {
    openapi: t.String(),
    info: t.Object({ title: t.String(), version: t.String() }, { additionalProperties: true }),
    paths: t.Record(t.String(), t.Unknown()),
  },
  { additionalProperties: true },
);

const AssetParam = t.Object({ file: t.String({ minLength: 1, maxLength: 64 }) });

export function docsRoutes(deps: Deps, routes: () => ReadonlyArray<RouteLike>) {
  let document: OpenApiDocument | null = null;
  const describe = (): OpenApiDocument => {
    document ??= openApiDocument({ routes: routes() }, deps.version);
    return document;
  };

  return new Elysia()
    .use(authPlugin(deps))
    .get(`${API_PREFIX}/openapi.json`, () => describe(), {
      public: true,
      response: OpenApiModel,
      detail: { tags: ['system'], summary: 'This document: OpenAPI 3.1, generated from the route table' },
    })
    .get('/docs', () => new Response(DOCS_PAGE, { headers: { 'content-type': 'text/html; charset=utf-8' } }), {
      public: true,
      detail: { tags: ['docs'], summary: 'The API docs page (Swagger UI)' },
    })
    .get(
      '/docs/:file',
      ({ params }) => {
        const asset = Object.hasOwn(DOCS_ASSETS, params.file) ? DOCS_ASSETS[params.file] : undefined;
        if (!asset) throw notFound('docs file', params.file);
        const body = 'path' in asset.source ? Bun.file(asset.source.path) : asset.source.text;
        return new Response(body, {
          headers: { 'content-type': asset.contentType, 'cache-control': 'public, max-age=3600' },
        });
      },
      { public: true, params: AssetParam, detail: { tags: ['docs'], summary: 'A file of the docs page' } },
    );
}
