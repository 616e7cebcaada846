import { Elysia, t } from 'elysia';
import type { Deps } from '../../deps';
import { authPlugin } from '../../http/auth';
import { IdParam } from '../../http/fields';
import { PageQuery, pageOf, sendList } from '../../http/lists';
import { created, noContent } from '../../http/responses';
import { TokenModel } from './model';
import { createToken, getToken, listTokens, revokeToken, updateToken } from './service';

/** Both reading and writing tokens need `users:write` (§1.4). */
export function tokensRoutes(deps: Deps) {
  return new Elysia({ prefix: '/tokens' })
    .use(authPlugin(deps))
    .get(
      '/',
      (ctx) => {
        const page = pageOf(ctx.query);
        return sendList(ctx, listTokens(deps, page), page);
      },
      { auth: 'users:write', query: t.Object(PageQuery), response: t.Array(TokenModel.dto) },
    )
    .post('/', ({ principal, body, set }) => created(set, createToken(deps, principal, body)), {
      auth: 'users:write',
      body: TokenModel.create,
      response: { 201: TokenModel.dto },
    })
    .get('/:id', ({ params }) => getToken(deps, params.id), {
      auth: 'users:write',
      params: IdParam,
      response: TokenModel.dto,
    })
    .put('/:id', ({ principal, params, body }) => updateToken(deps, principal, params.id, body), {
      auth: 'users:write',
      params: IdParam,
      body: TokenModel.update,
      response: TokenModel.dto,
    })
    .patch('/:id', ({ principal, params, body }) => updateToken(deps, principal, params.id, body), {
      auth: 'users:write',
      params: IdParam,
      body: TokenModel.update,
      response: TokenModel.dto,
    })
    .delete(
      '/:id',
      ({ principal, params, set }) => {
        revokeToken(deps, principal, params.id);
        return noContent(set);
      },
      { auth: 'users:write', params: IdParam },
    );
}
