import { Elysia, t } from 'elysia';
import type { Deps } from '../../deps';
import { authPlugin } from '../../http/auth';
import { IdParam } from '../../http/fields';
import { PageQuery, pageOf, sendList } from '../../http/lists';
import { created, noContent } from '../../http/responses';
import { RoleModel } from './model';
import { createRole, deleteRole, getRole, listRoles, permissionList, updateRole } from './service';

export function rolesRoutes(deps: Deps) {
  return new Elysia({ prefix: '/roles' })
    .use(authPlugin(deps))
    .get(
      '/',
      (ctx) => {
        const page = pageOf(ctx.query);
        return sendList(ctx, listRoles(deps, page), page);
      },
      { auth: 'roles:read', query: t.Object(PageQuery), response: t.Array(RoleModel.dto) },
    )
    .post('/', ({ principal, body, set }) => created(set, createRole(deps, principal, body)), {
      auth: 'roles:write',
      body: RoleModel.create,
      response: { 201: RoleModel.dto },
    })
    .get(
      '/permissions',
      (ctx) => {
        const page = pageOf(ctx.query);
        return sendList(ctx, permissionList(page), page);
      },
      { auth: 'roles:read', query: t.Object(PageQuery), response: RoleModel.permissionList },
    )
    .get('/:id', ({ params }) => getRole(deps, params.id), {
      auth: 'roles:read',
      params: IdParam,
      response: RoleModel.dto,
    })
    .put('/:id', ({ principal, params, body }) => updateRole(deps, principal, params.id, body), {
      auth: 'roles:write',
      params: IdParam,
      body: RoleModel.update,
      response: RoleModel.dto,
    })
    .patch('/:id', ({ principal, params, body }) => updateRole(deps, principal, params.id, body), {
      auth: 'roles:write',
      params: IdParam,
      body: RoleModel.update,
      response: RoleModel.dto,
    })
    .delete(
      '/:id',
      ({ principal, params, set }) => {
        deleteRole(deps, principal, params.id);
        return noContent(set);
      },
      { auth: 'roles:write', params: IdParam },
    );
}
