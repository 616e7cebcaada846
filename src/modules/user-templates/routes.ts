import { Elysia, t } from 'elysia';
import type { Deps } from '../../deps';
import { authPlugin } from '../../http/auth';
import { IdParam } from '../../http/fields';
import { PageQuery, pageOf, sendList } from '../../http/lists';
import { created, noContent } from '../../http/responses';
import { UserTemplateModel } from './model';
import {
  createUserTemplate,
  deleteUserTemplate,
  getUserTemplate,
  listUserTemplates,
  updateUserTemplate,
} from './service';

/** User templates sit in the users area (§0.3): reads need `users:read`, writes `users:write`. */
export function userTemplatesRoutes(deps: Deps) {
  return new Elysia({ prefix: '/usertemplates' })
    .use(authPlugin(deps))
    .get(
      '/',
      (ctx) => {
        const page = pageOf(ctx.query);
        return sendList(ctx, listUserTemplates(deps, page), page);
      },
      { auth: 'users:read', query: t.Object(PageQuery), response: t.Array(UserTemplateModel.dto) },
    )
    .post('/', ({ principal, body, set }) => created(set, createUserTemplate(deps, principal, body)), {
      auth: 'users:write',
      body: UserTemplateModel.create,
      response: { 201: UserTemplateModel.dto },
    })
    .get('/:id', ({ params }) => getUserTemplate(deps, params.id), {
      auth: 'users:read',
      params: IdParam,
      response: UserTemplateModel.dto,
    })
    .put('/:id', ({ principal, params, body }) => updateUserTemplate(deps, principal, params.id, body), {
      auth: 'users:write',
      params: IdParam,
      body: UserTemplateModel.update,
      response: UserTemplateModel.dto,
    })
    .patch('/:id', ({ principal, params, body }) => updateUserTemplate(deps, principal, params.id, body), {
      auth: 'users:write',
      params: IdParam,
      body: UserTemplateModel.update,
      response: UserTemplateModel.dto,
    })
    .delete(
      '/:id',
      ({ principal, params, set }) => {
        deleteUserTemplate(deps, principal, params.id);
        return noContent(set);
      },
      { auth: 'users:write', params: IdParam },
    );
}
