import { t } from 'elysia';
import type { Deps } from '../../deps';
import { crudRoutes } from '../../http/crud';
import { fieldFilterQuery, PageQuery } from '../../http/lists';
import { USER_TEMPLATE_FIELD_FILTERS, UserTemplateModel } from './model';
import {
  createUserTemplate,
  deleteUserTemplate,
  getUserTemplate,
  listUserTemplates,
  updateUserTemplate,
} from './service';

/** User templates sit in the users area (§0.3): reads need `users:read`, writes `users:write`. */
export function userTemplatesRoutes(deps: Deps) {
  return crudRoutes({
    prefix: '/usertemplates',
    model: {
      dto: UserTemplateModel.dto,
      list: t.Array(UserTemplateModel.dto),
      listQuery: t.Object({ ...PageQuery, ...fieldFilterQuery(USER_TEMPLATE_FIELD_FILTERS) }),
      write: UserTemplateModel.update,
    },
    read: 'users:read',
    write: 'users:write',
    list: { run: (query, page) => listUserTemplates(deps, query, page) },
    get: { run: (id) => getUserTemplate(deps, id) },
    create: { body: UserTemplateModel.create, run: (principal, body) => createUserTemplate(deps, principal, body) },
    update: { run: (principal, id, body) => updateUserTemplate(deps, principal, id, body) },
    remove: { run: (principal, id) => deleteUserTemplate(deps, principal, id) },
  });
}
