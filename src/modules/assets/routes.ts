import type { Deps } from '../../deps';
import type { AuthRule } from '../../http/auth';
import { crudRoutes, OWNED_KEYS } from '../../http/crud';
import { IdParam } from '../../http/fields';
import { metadataFilterOf, onlyKnownFilters, sendWhole } from '../../http/lists';
import { noContent, upserted } from '../../http/responses';
import { routeGroup } from '../../http/route-group';
import { assetHistoricCounts, matchingHistoricCounts, networkHistoricCounts } from './counts';
import { AssetModel } from './model';
import { getAsset, listAssets, type Scope } from './service';
import { deleteAsset, deleteAssets, updateAsset, upsertAsset } from './write';

/**
 * Creates and updates: `assets:write` or the integration role, limited to its own subsystems by the
 * service (§0.3: "read; create and update its own assets"). Deletes, one or many: `assets:write`
 * only, as players' (the integration role's token deleted assets).
 */
const WRITE = { permission: 'assets:write', integration: true } as const satisfies AuthRule;
const DELETE = 'assets:write';

/** The usual routes of one view of the store: every asset, or infra assets only (§16). */
function assetCrud(deps: Deps, prefix: string, scope: Scope) {
  const noun = scope === 'infra' ? 'infra asset' : 'asset';
  return crudRoutes({
    prefix,
    model: AssetModel,
    read: 'assets:read',
    write: WRITE,
    list: {
      run: (query, page, { request }) => listAssets(deps, query, metadataFilterOf(request.url), page, scope),
      summary: `List ${noun}s (filters type, profileType, parentId, status, subsystemExternalId, externalRef, tags, metadata[key], fuzzy)`,
    },
    get: { run: (id) => getAsset(deps, id, scope), summary: `Read an ${noun} with its metrics and health` },
    upsert: {
      methods: scope === 'infra' ? ['POST'] : ['POST', 'PUT'],
      run: (principal, body) => upsertAsset(deps, principal, body, scope),
      summary: `Create or update an ${noun} (upsert by _id or subsystem + externalRef)`,
    },
    update: {
      createOnly: OWNED_KEYS,
      run: (principal, id, body) => updateAsset(deps, principal, id, body, scope),
      summary: `Update an ${noun}`,
    },
    remove: {
      auth: DELETE,
      run: (principal, id) => deleteAsset(deps, principal, id, scope),
      summary: `Delete an ${noun} (409 while it has child assets; its metrics are detached)`,
    },
  });
}

/** The hooks of a `historicCounts` route of one asset and its descendants (§16 rules 2, 3). */
function countsOfOne<R extends typeof AssetModel.healthCounts | typeof AssetModel.portCounts>(
  response: R,
  summary: string,
) {
  return {
    auth: 'assets:read',
    params: IdParam,
    query: AssetModel.countsQuery,
    response,
    detail: { summary },
  } as const;
}

/** Assets and infra assets (§16): `/assets`, `/asset` (singular upsert), `/infra/assets`. */
export function assetsRoutes(deps: Deps) {
  const all = assetCrud(deps, '/assets', 'all')
    .get(
      '/historicCounts',
      ({ query, request, set }) => sendWhole(set, matchingHistoricCounts(deps, query, metadataFilterOf(request.url))),
      {
        auth: 'assets:read',
        query: AssetModel.matchingCountsQuery,
        response: AssetModel.healthCounts,
        detail: {
          summary: 'Health counts over time of every asset the list filters select (interval 5m, 15m, 1h, 1d)',
        },
      },
    )
    .get(
      '/:id/historicCounts',
      ({ params, query, set }) => sendWhole(set, assetHistoricCounts(deps, params.id, 'all', query)),
      countsOfOne(AssetModel.healthCounts, 'Health counts over time of an asset and its descendants'),
    )
    .delete(
      '/',
      ({ body, query, request, set, principal }) => {
        onlyKnownFilters(request.url, AssetModel.deleteQuery.properties, true);
        const n = deleteAssets(deps, principal, body?.ids, query, metadataFilterOf(request.url));
        set.headers['x-deleted-count'] = String(n);
        return noContent(set);
      },
      {
        auth: DELETE,
        query: AssetModel.deleteQuery,
        body: AssetModel.deleteBody,
        detail: { summary: 'Delete assets by {ids} or by list filters (at least one)' },
      },
    );
  const singular = routeGroup('/asset').put(
    '/',
    ({ principal, body, set }) => upserted(set, upsertAsset(deps, principal, body, 'all')),
    {
      auth: WRITE,
      body: AssetModel.write,
      response: { 200: AssetModel.dto, 201: AssetModel.dto },
      detail: { summary: 'Create or update an asset (singular alias of PUT /assets)' },
    },
  );
  return routeGroup()
    .use(all)
    .use(singular)
    .use(
      assetCrud(deps, '/infra/assets', 'infra')
        .get(
          '/:id/historicCounts',
          ({ params, query, set }) => sendWhole(set, assetHistoricCounts(deps, params.id, 'infra', query)),
          countsOfOne(AssetModel.healthCounts, 'Health counts over time of an infra asset and its descendants'),
        )
        .get(
          '/:id/network/historicCounts',
          ({ params, query, set }) => sendWhole(set, networkHistoricCounts(deps, params.id, query)),
          countsOfOne(
            AssetModel.portCounts,
            'Network port-state counts over time of an infra asset and its descendants',
          ),
        ),
    );
}
