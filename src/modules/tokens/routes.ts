import { t } from 'elysia';
import type { Deps } from '../../deps';
import { crudRoutes } from '../../http/crud';
import { PageQuery } from '../../http/lists';
import { TokenModel } from './model';
import { createToken, getToken, listTokens, revokeToken, updateToken } from './service';

/** Both reading and writing tokens need `users:write` (§1.4). */
export function tokensRoutes(deps: Deps) {
  return crudRoutes(deps, {
    prefix: '/tokens',
    model: {
      dto: TokenModel.dto,
      list: t.Array(TokenModel.dto),
      listQuery: t.Object(PageQuery),
      write: TokenModel.update,
    },
    read: 'users:write',
    write: 'users:write',
    list: { run: (_query, page) => listTokens(deps, page) },
    get: { run: (id) => getToken(deps, id) },
    create: { body: TokenModel.create, run: (principal, body) => createToken(deps, principal, body) },
    update: { run: (principal, id, body) => updateToken(deps, principal, id, body) },
    remove: { run: (principal, id) => revokeToken(deps, principal, id) },
  });
}
