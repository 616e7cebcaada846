import { t } from 'elysia';
import type { Deps } from '../../deps';
import { crudRoutes } from '../../http/crud';
import { IdParam } from '../../http/fields';
import { PageQuery, pageOf, sendList } from '../../http/lists';
import { noContent } from '../../http/responses';
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
  return crudRoutes({
    prefix: '/users',
    model: {
      dto: UserModel.dto,
      list: t.Array(UserModel.dto),
      listQuery: UserModel.listQuery,
      write: UserModel.update,
    },
    read: 'users:read',
    write: 'users:write',
    list: { run: (query, page) => listUsers(deps, query, page) },
    get: {
      auth: { permission: 'users:read', self: true },
      query: UserModel.getQuery,
      run: (id, principal, query) => getUser(deps, principal, id, query.availablePanels === 'true'),
    },
    create: { body: UserModel.create, run: (principal, body) => createUser(deps, principal, body) },
    update: {
      createOnly: ['username', 'templateId'],
      auth: { permission: 'users:write', self: true },
      run: (principal, id, body) => updateUser(deps, principal, id, body),
    },
    remove: { run: (principal, id) => deleteUser(deps, principal, id) },
  })
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
