import { t } from 'elysia';
import type { Deps } from '../../../deps';
import { crudRoutes } from '../../../http/crud';
import { fieldFilterQuery, PageQuery } from '../../../http/lists';
import { ForceQuery } from '../routes-common';
import { BLOCK_FIELD_FILTERS, BlockModel } from './model';
import { createBlock, deleteBlock, getBlock, listBlocks, updateBlock } from './service';

/** Blocks (§11.4) under `/schedule/blocks`. */
export function blocksRoutes(deps: Deps) {
  return crudRoutes({
    prefix: '/schedule/blocks',
    model: {
      dto: BlockModel.dto,
      list: t.Array(BlockModel.dto),
      listQuery: t.Object({ ...PageQuery, ...fieldFilterQuery(BLOCK_FIELD_FILTERS) }),
      write: BlockModel.update,
    },
    read: 'schedule:read',
    write: 'schedule:write',
    list: { run: (query, page) => listBlocks(deps, query, page) },
    get: { run: (id) => getBlock(deps, id) },
    create: { body: BlockModel.create, run: (principal, body) => createBlock(deps, principal, body) },
    update: { run: (principal, id, body) => updateBlock(deps, principal, id, body) },
    remove: {
      query: ForceQuery,
      run: (principal, id, query) => deleteBlock(deps, principal, id, query.force === 'true'),
    },
  });
}
