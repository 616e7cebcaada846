/**
 * The docs page and its assets, all served by the daemon (the appliance has no internet). The
 * Swagger UI files are imported `with { type: 'file' }`, so `bun build --compile` embeds them in the
 * executable and the import is the path to read them from, on disk or inside the binary.
 */

import favicon16 from 'swagger-ui-dist/favicon-16x16.png' with { type: 'file' };
import favicon32 from 'swagger-ui-dist/favicon-32x32.png' with { type: 'file' };
import css from 'swagger-ui-dist/swagger-ui.css' with { type: 'file' };
import bundle from 'swagger-ui-dist/swagger-ui-bundle.js' with { type: 'file' };

export interface DocsAsset {
  /** The embedded file, or inline text for the files written here. */
  source: { path: string } | { text: string };
  contentType: string;
}

// validatorUrl: null, or Swagger UI sends the document to validator.swagger.io for its badge.
const INIT_JS = `window.addEventListener('load', function () {
  window.ui = SwaggerUIBundle({
    url: '/api/v1/openapi.json',
    dom_id: '#swagger-ui',
    deepLinking: true,
    validatorUrl: null,
    withCredentials: true,
    presets: [SwaggerUIBundle.presets.apis],
    layout: 'BaseLayout',
  });
});
`;

const PAGE_CSS = `html { box-sizing: border-box; overflow-y: scroll; }
*, *:before, *:after { box-sizing: inherit; }
body { margin: 0; background: #fafafa; }
`;

export const DOCS_PAGE = `<!DOCTYPE html>
<html lang="en">
  <head>
    <meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <title>pms API</title>
    <link rel="stylesheet" href="/docs/swagger-ui.css">
    <link rel="stylesheet" href="/docs/page.css">
    <link rel="icon" type="image/png" href="/docs/favicon-32x32.png" sizes="32x32">
    <link rel="icon" type="image/png" href="/docs/favicon-16x16.png" sizes="16x16">
  </head>
  <body>
    <div id="swagger-ui"></div>
    <script src="/docs/swagger-ui-bundle.js" charset="utf-8"></script>
    <script src="/docs/init.js" charset="utf-8"></script>
  </body>
</html>
`;

/** Every file under /docs/, by name. */
export const DOCS_ASSETS: Readonly<Record<string, DocsAsset>> = {
  'swagger-ui-bundle.js': { source: { path: bundle }, contentType: 'text/javascript; charset=utf-8' },
  'swagger-ui.css': { source: { path: css }, contentType: 'text/css; charset=utf-8' },
  'favicon-16x16.png': { source: { path: favicon16 }, contentType: 'image/png' },
  'favicon-32x32.png': { source: { path: favicon32 }, contentType: 'image/png' },
  'init.js': { source: { text: INIT_JS }, contentType: 'text/javascript; charset=utf-8' },
  'page.css': { source: { text: PAGE_CSS }, contentType: 'text/css; charset=utf-8' },
};
