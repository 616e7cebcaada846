import { Elysia, t } from 'elysia';
import type { Deps } from '../../deps';
import { authPlugin } from '../../http/auth';
import { IdParam } from '../../http/fields';
import { PageQuery, pageOf, sendList } from '../../http/lists';
import { created, noContent } from '../../http/responses';
import { availablePanelsOf, getDashboard, replaceDashboard } from './dashboard';
import { createUser, updateUser } from './edit';
import { UserModel } from './model';
import { deleteUser, getUser, listUsers, setPasswordByAdmin } from './service';

const PanelPageQuery = t.Object(PageQuery);

/**
 * Users (§1.2). Routes marked `self: true` also let any signed-in user through; the service then
 * limits a caller without the permission to their own record (§0.3). `{id}` accepts `me`.
 */
export function usersRoutes(deps: Deps) {
  return new Elysia({ prefix: '/users' })
    .use(authPlugin(deps))
    .get(
      '/',
      (ctx) => {
        const page = pageOf(ctx.query);
        return sendList(ctx, listUsers(deps, ctx.query, page), page);
      },
      { auth: 'users:read', query: UserModel.listQuery, response: t.Array(UserModel.dto) },
    )
    .post('/', async ({ principal, body, set }) => created(set, await createUser(deps, principal, body)), {
      auth: 'users:write',
      body: UserModel.create,
      response: { 201: UserModel.dto },
    })
    .get(
      '/:id',
      ({ principal, params, query }) => getUser(deps, principal, params.id, query.availablePanels === 'true'),
      {
        auth: { permission: 'users:read', self: true },
        params: IdParam,
        query: UserModel.getQuery,
        response: UserModel.dto,
      },
    )
    .put('/:id', ({ principal, params, body }) => updateUser(deps, principal, params.id, body), {
      auth: { permission: 'users:write', self: true },
      params: IdParam,
      body: UserModel.update,
      response: UserModel.dto,
    })
    .patch('/:id', ({ principal, params, body }) => updateUser(deps, principal, params.id, body), {
      auth: { permission: 'users:write', self: true },
      params: IdParam,
      body: UserModel.update,
      response: UserModel.dto,
    })
    .delete(
      '/:id',
      ({ principal, params, set }) => {
        deleteUser(deps, principal, params.id);
        return noContent(set);
      },
      { auth: 'users:write', params: IdParam },
    )
    .put(
      '/:id/password',
      async ({ principal, params, body, set }) => {
        await setPasswordByAdmin(deps, principal, params.id, body.password);
        return noContent(set);
      },
      { auth: 'users:write', params: IdParam, body: UserModel.password },
    )
    .get(
      '/:id/controlpanels',
      (ctx) => {
        const page = pageOf(ctx.query);
        return sendList(ctx, getDashboard(deps, ctx.principal, ctx.params.id, page), page);
      },
      {
        auth: { permission: 'users:read', self: true },
        params: IdParam,
        query: PanelPageQuery,
        response: UserModel.panels,
      },
    )
    .put('/:id/controlpanels', ({ principal, params, body }) => replaceDashboard(deps, principal, params.id, body), {
      auth: { permission: 'users:write', self: true },
      params: IdParam,
      body: UserModel.dashboard,
      response: UserModel.panels,
    })
    .get(
      '/:id/availablepanels',
      (ctx) => {
        const page = pageOf(ctx.query);
        return sendList(ctx, availablePanelsOf(deps, ctx.principal, ctx.params.id, page), page);
      },
      {
        auth: { permission: 'users:read', self: true },
        params: IdParam,
        query: PanelPageQuery,
        response: UserModel.panels,
      },
    );
}
