import { t } from 'elysia';
import type { Deps } from '../../deps';
import { routeGroup } from '../../http/route-group';

const detail = { tags: ['system'] };

/** Liveness and version (C: Base and ports): public, cheap, no database work. */
export function systemRoutes(deps: Deps) {
  const startedAt = deps.clock.monotonic();
  return routeGroup()
    .get(
      '/health',
      () => ({
        status: 'ok' as const,
        version: deps.version.version,
        uptimeS: Math.floor((deps.clock.monotonic() - startedAt) / 1000),
      }),
      {
        public: true,
        response: t.Object({ status: t.Literal('ok'), version: t.String(), uptimeS: t.Integer() }),
        detail: { ...detail, summary: 'Liveness' },
      },
    )
    .get('/version', () => deps.version, {
      public: true,
      response: t.Object({ version: t.String(), apiVersion: t.String(), commit: t.String() }),
      detail: { ...detail, summary: 'Product version and interface level' },
    });
}
