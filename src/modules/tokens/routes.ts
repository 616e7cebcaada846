import { t } from 'elysia';
import type { Deps } from '../../deps';
import { crudRoutes } from '../../http/crud';
import { fieldFilterQuery, PageQuery } from '../../http/lists';
import { TOKEN_FIELD_FILTERS, TokenModel } from './model';
import { createToken, getToken, listTokens, revokeToken, updateToken } from './service';

/** Both reading and writing tokens need `users:write` (§1.4). */
export function tokensRoutes(deps: Deps) {
  return crudRoutes({
    prefix: '/tokens',
    model: {
      dto: TokenModel.dto,
      list: t.Array(TokenModel.dto),
      listQuery: t.Object({ ...PageQuery, ...fieldFilterQuery(TOKEN_FIELD_FILTERS) }),
      write: TokenModel.update,
    },
    read: 'users:write',
    write: 'users:write',
    list: { run: (query, page) => listTokens(deps, query, page) },
    get: { run: (id) => getToken(deps, id) },
    create: { body: TokenModel.create, run: (principal, body) => createToken(deps, principal, body) },
    update: { run: (principal, id, body) => updateToken(deps, principal, id, body) },
    remove: { run: (principal, id) => revokeToken(deps, principal, id) },
  });
}
