import { t } from 'elysia';
import type { Deps } from '../../deps';
import { crudRoutes } from '../../http/crud';
import { fieldFilterQuery, PageQuery, pageOf, sendList } from '../../http/lists';
import { ROLE_FIELD_FILTERS, RoleModel } from './model';
import { createRole, deleteRole, getRole, listRoles, permissionList, updateRole } from './service';

export function rolesRoutes(deps: Deps) {
  return crudRoutes({
    prefix: '/roles',
    model: {
      dto: RoleModel.dto,
      list: t.Array(RoleModel.dto),
      listQuery: t.Object({ ...PageQuery, ...fieldFilterQuery(ROLE_FIELD_FILTERS) }),
      write: RoleModel.update,
    },
    read: 'roles:read',
    write: 'roles:write',
    list: { run: (query, page) => listRoles(deps, query, page) },
    get: { run: (id) => getRole(deps, id) },
    create: { body: RoleModel.create, run: (principal, body) => createRole(deps, principal, body) },
    update: { createOnly: ['name'], run: (principal, id, body) => updateRole(deps, principal, id, body) },
    remove: { run: (principal, id) => deleteRole(deps, principal, id) },
  }).get(
    '/permissions',
    (ctx) => {
      const page = pageOf(ctx.query);
      return sendList(ctx, permissionList(page), page);
    },
    { auth: 'roles:read', query: t.Object(PageQuery), response: RoleModel.permissionList },
  );
}
