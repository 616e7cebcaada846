import { Elysia, t } from 'elysia';
import type { Deps } from '../../../deps';
import { authPlugin } from '../../../http/auth';
import { IdParam } from '../../../http/fields';
import { PageQuery, pageOf, sendList } from '../../../http/lists';
import { created, noContent } from '../../../http/responses';
import { ForceQuery } from '../routes-common';
import { BlockModel } from './model';
import { createBlock, deleteBlock, getBlock, listBlocks, updateBlock } from './service';

/** Blocks (§11.4) under `/schedule/blocks`. */
export function blocksRoutes(deps: Deps) {
  return new Elysia({ prefix: '/schedule/blocks' })
    .use(authPlugin(deps))
    .get(
      '/',
      (ctx) => {
        const page = pageOf(ctx.query);
        return sendList(ctx, listBlocks(deps, page), page);
      },
      { auth: 'schedule:read', query: t.Object(PageQuery), response: t.Array(BlockModel.dto) },
    )
    .post('/', ({ principal, body, set }) => created(set, createBlock(deps, principal, body)), {
      auth: 'schedule:write',
      body: BlockModel.create,
      response: { 201: BlockModel.dto },
    })
    .get('/:id', ({ params }) => getBlock(deps, params.id), {
      auth: 'schedule:read',
      params: IdParam,
      response: BlockModel.dto,
    })
    .put('/:id', ({ principal, params, body }) => updateBlock(deps, principal, params.id, body), {
      auth: 'schedule:write',
      params: IdParam,
      body: BlockModel.update,
      response: BlockModel.dto,
    })
    .patch('/:id', ({ principal, params, body }) => updateBlock(deps, principal, params.id, body), {
      auth: 'schedule:write',
      params: IdParam,
      body: BlockModel.update,
      response: BlockModel.dto,
    })
    .delete(
      '/:id',
      ({ principal, params, query, set }) => {
        deleteBlock(deps, principal, params.id, query.force === 'true');
        return noContent(set);
      },
      { auth: 'schedule:write', params: IdParam, query: ForceQuery },
    );
}
