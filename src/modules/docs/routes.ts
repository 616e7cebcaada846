/**
 * The API description (C: Base and ports): `GET /api/v1/openapi.json` and the `/docs` page, both public,
 * and `GET /`: a person who types the appliance's address (`http://pms/`) gets a small page naming
 * the product and version, where the API and its docs are and how to sign in, not a JSON 404.
 * The document describes the app these routes are part of, so it is built from the final route table
 * on the first request (through `routes`) and kept: the table does not change once the app is built.
 */
import { t } from 'elysia';
import type { Deps } from '../../deps';
import { notFound } from '../../http/errors';
import { API_PREFIX } from '../../http/links';
import { type OpenApiDocument, openApiDocument, type RouteLike } from '../../http/openapi';
import { routeGroup } from '../../http/route-group';
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

  const home = homePage(deps);
  return routeGroup()
    .get('/', () => new Response(home, { headers: { 'content-type': 'text/html; charset=utf-8' } }), {
      public: true,
      detail: { tags: ['docs'], summary: 'The appliance address: what this is, where the API and docs are' },
    })
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

const escapeHtml = (text: string): string => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** The page at `/`, built once: nothing on it changes while the daemon runs. */
function homePage(deps: Deps): string {
  const v = deps.version;
  const version = escapeHtml(`${v.version} (API ${v.apiVersion}${v.commit ? `, ${v.commit}` : ''})`);
  return `<!DOCTYPE html>
<html lang="en">
  <head>
    <meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <title>pms</title>
    <link rel="icon" type="image/png" href="/docs/favicon-32x32.png" sizes="32x32">
    <style>body{font:16px/1.5 system-ui,sans-serif;max-width:40rem;margin:3rem auto;padding:0 1rem;color:#222}code{background:#f3f3f3;padding:0 .2em}</style>
  </head>
  <body>
    <h1>pms — platform management service</h1>
    <p>Version ${version}. This appliance has no console yet; it is run through its API.</p>
    <ul>
      <li><a href="/docs">API documentation</a> (try requests from the page) and the
        <a href="${API_PREFIX}/openapi.json">OpenAPI description</a></li>
      <li>Sign in: <code>POST ${API_PREFIX}/auth/login</code> with <code>{"username", "password"}</code>; the
        first administrator comes from <code>PMS_INITIAL_ADMIN_PASSWORD</code> or <code>pmsd user add --admin &lt;name&gt;</code></li>
      <li>Health: <a href="${API_PREFIX}/health">${API_PREFIX}/health</a></li>
    </ul>
  </body>
</html>
`;
}
