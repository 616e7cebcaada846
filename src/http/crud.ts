/**
 * The usual resource routes, declared once (C: Requests, Responses): list, upsert by POST and PUT
 * (or create by POST), read, update by PUT and PATCH, delete. A module states what differs (paths,
 * rules, models, the service calls, summaries) and chains its other routes onto the instance this
 * returns, which carries the auth macro, so `principal` stays typed in them. Every verb's service gets
 * the request last (for what depends on it, such as absolute links on the origin it came to).
 */
import { Kind, type TObject } from '@sinclair/typebox';
import { type Static, type TSchema, t } from 'elysia';
import type { Principal } from '../core/principal';
import type { AuthRule } from './auth';
import { IdParam } from './fields';
import { type ListResult, type Page, pageOf, sendList } from './lists';
import { created, noContent, upserted } from './responses';
import { routeGroup } from './route-group';

/** A service answer, now or later: services that await (variables) and those that do not share one route. */
type Maybe<T> = T | Promise<T>;

/** An entity as services answer it: with the self link a 201 names in `Location`. */
type Linked<D> = D & { _links: { self: string } };

/** What an upsert service returns: the entity and whether it was created (201) or updated (200). */
type Upserted<D> = { entity: Linked<D>; created: boolean };

/**
 * The schemas every such resource has; `write` is the body of update, and of upsert or create
 * unless that verb names its own.
 */
interface CrudModel<D extends TSchema, Q extends TObject, W extends TSchema> {
  dto: D;
  list: TSchema;
  listQuery: Q;
  write?: W;
}

/** Summary of one route in the OpenAPI document; a route without one has no `detail` of its own. */
interface Verb {
  summary?: string;
  /** The rule of this verb when it is not the spec's `read` or `write`. */
  auth?: AuthRule;
}

export interface CrudSpec<
  D extends TSchema,
  Q extends TObject,
  W extends TSchema,
  UB extends TSchema,
  DQ extends TObject,
  GQ extends TObject,
> {
  /** The instance's prefix (`/events`); none when the routes are mounted under another prefix. */
  prefix?: string;
  /** The collection's path under the prefix: `/` (the default) or a sub-collection (`/scenarios`). */
  path?: string;
  model: CrudModel<D, Q, W>;
  /** The rule of the list and the read. */
  read: AuthRule;
  /** The rule of upsert, update and delete. */
  write: AuthRule;
  list: Verb & {
    run: (query: Static<Q>, page: Page, caller: { principal: Principal; request: Request }) => ListResult<Static<D>>;
  };
  /** GET on one entity; `query`, when given, is the query it accepts (the service gets it parsed). */
  get: Verb & {
    query?: GQ;
    run: (id: string, principal: Principal, query: Static<GQ>, request: Request) => Static<D>;
  };
  /** POST and PUT on the collection (or `path` under it, e.g. `/show`): 201 with Location when created, else 200. */
  upsert?: Verb & {
    path?: string;
    methods?: ReadonlyArray<'POST' | 'PUT'>;
    body?: UB;
    run: (principal: Principal, body: Static<UB>, request: Request) => Maybe<Upserted<Static<D>>>;
  };
  /**
   * POST on the collection that only creates, for a resource without upsert: always 201 with
   * Location, the only status its response schema names. `body` as upsert's; not beside an upsert by POST.
   */
  create?: Verb & {
    body?: UB;
    run: (principal: Principal, body: Static<UB>, request: Request) => Maybe<Linked<Static<D>>>;
  };
  /**
   * PUT and PATCH on one entity: absent fields keep their value. Their body is `write` without `_id`
   * (the path names the entity) and without `createOnly`, the W1 fields of the resource: sent here
   * they are read-only, so they are ignored whatever they hold, never a 400 (C: Requests).
   */
  update?: Verb & {
    createOnly?: readonly string[];
    run: (principal: Principal, id: string, body: Static<W>, request: Request) => Maybe<Static<D>>;
  };
  /** DELETE on one entity: 204, whatever the service returns. */
  remove?: Verb & {
    query?: DQ;
    run: (principal: Principal, id: string, query: Static<DQ>, request: Request) => unknown;
  };
}

/** `detail` with the summary, or nothing, so a route without a summary stays as it was declared. */
function detailOf(verb: Verb | undefined): { detail?: { summary: string } } {
  return verb?.summary ? { detail: { summary: verb.summary } } : {};
}

/** The create-only (W1) fields of everything a subsystem owns: its subsystem and its upsert key. */
export const OWNED_KEYS = ['subsystemId', 'subsystemExternalId', 'externalRef'] as const;

/** The body of a single entity's update: `write` without `_id` and the create-only fields. */
function updateBody<W extends TSchema>(write: W | undefined, createOnly: readonly string[]): W | undefined {
  if (write?.[Kind] !== 'Object') return write;
  const dropped = ['_id', ...createOnly].filter((key) => key in (write as unknown as TObject).properties);
  return (dropped.length === 0 ? write : t.Omit(write as unknown as TObject, dropped)) as unknown as W;
}

/** Applies `then` now when the service answered now, after it settles otherwise. */
function whenDone<T, R>(value: Maybe<T>, then: (value: T) => R): Maybe<R> {
  return value instanceof Promise ? value.then(then) : then(value);
}

/** The usual routes of a resource, on an instance that carries the auth macro; chain the others onto it. */
export function crudRoutes<
  D extends TSchema,
  Q extends TObject,
  W extends TSchema = TSchema,
  UB extends TSchema = W,
  DQ extends TObject = TObject,
  GQ extends TObject = TObject,
>(spec: CrudSpec<D, Q, W, UB, DQ, GQ>) {
  const app = routeGroup(spec.prefix);
  const base = spec.path ?? '/';
  const one = `${base === '/' ? '' : base}/:id`;
  const { model } = spec;
  app.get(
    base,
    (ctx) => {
      const page = pageOf(ctx.query);
      return sendList(ctx, spec.list.run(ctx.query, page, ctx), page);
    },
    { auth: spec.list.auth ?? spec.read, query: model.listQuery, response: model.list, ...detailOf(spec.list) },
  );
  const { upsert, create, update, remove } = spec;
  if (upsert) {
    const path = upsert.path ? `${base === '/' ? '' : base}${upsert.path}` : base;
    const route = {
      auth: upsert.auth ?? spec.write,
      body: upsert.body ?? model.write,
      response: { 200: model.dto, 201: model.dto },
      ...detailOf(upsert),
    };
    for (const method of upsert.methods ?? ['POST', 'PUT']) {
      const add = method === 'POST' ? app.post.bind(app) : app.put.bind(app);
      add(
        path,
        ({ principal, body, request, set }) => whenDone(upsert.run(principal, body, request), (r) => upserted(set, r)),
        route,
      );
    }
  }
  if (create) {
    app.post(
      base,
      ({ principal, body, request, set }) => whenDone(create.run(principal, body, request), (e) => created(set, e)),
      {
        auth: create.auth ?? spec.write,
        body: create.body ?? model.write,
        response: { 201: model.dto },
        ...detailOf(create),
      },
    );
  }
  app.get(one, ({ params, principal, query, request }) => spec.get.run(params.id, principal, query, request), {
    auth: spec.get.auth ?? spec.read,
    params: IdParam,
    ...(spec.get.query ? { query: spec.get.query } : {}),
    response: model.dto,
    ...detailOf(spec.get),
  });
  if (update) {
    const route = {
      auth: update.auth ?? spec.write,
      params: IdParam,
      body: updateBody(model.write, update.createOnly ?? []),
      response: model.dto,
      ...detailOf(update),
    };
    app.put(one, ({ principal, params, body, request }) => update.run(principal, params.id, body, request), route);
    app.patch(one, ({ principal, params, body, request }) => update.run(principal, params.id, body, request), route);
  }
  if (remove) {
    app.delete(
      one,
      ({ principal, params, query, request, set }) =>
        whenDone(remove.run(principal, params.id, query, request), () => noContent(set)),
      {
        auth: remove.auth ?? spec.write,
        params: IdParam,
        ...(remove.query ? { query: remove.query } : {}),
        ...detailOf(remove),
      },
    );
  }
  return app;
}
