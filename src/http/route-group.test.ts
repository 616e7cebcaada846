import { describe, expect, it, spyOn } from 'bun:test';
import { Elysia } from 'elysia';
import { makeTestApp } from '../../tests/helpers/app';
import { mountRoutes, routeGroup, routesOf } from './route-group';

const ok = () => 'ok';

describe('a route group', () => {
  it("joins paths as Elysia does: a leading slash added, the group's prefix before, an outer group's before that", () => {
    const inner = routeGroup('/presets').get('/', ok).get(':id', ok).post('', ok);
    const outer = routeGroup('/api/v1').use(inner).put('/x', ok);
    expect(routesOf(outer).map((r) => `${r.method} ${r.path}`)).toEqual([
      'GET /api/v1/presets/',
      'GET /api/v1/presets/:id',
      'POST /api/v1/presets',
      'PUT /api/v1/x',
    ]);
  });

  it('runs an onAfterResponse hook after the routes declared after it, in its group and in groups it uses after it', () => {
    const first = () => undefined;
    const second = () => undefined;
    const used = routeGroup('/u').get('/a', ok, { afterResponse: second });
    const group = routeGroup().get('/before', ok).onAfterResponse(first).get('/after', ok).use(used);
    const hooks = Object.fromEntries(routesOf(group).map((r) => [r.path, r.hook?.afterResponse]));
    expect(hooks).toEqual({ '/before': undefined, '/after': [first], '/u/a': [first, second] });
  });

  it('uses only other groups: an Elysia instance would be added twice, so it is refused', () => {
    expect(() => routeGroup().use(new Elysia().get('/x', ok))).toThrow(TypeError);
    expect(() => routesOf(new Elysia())).toThrow(TypeError);
  });

  it('is mounted route by route, with its hooks, and answers through the app', async () => {
    const app = new Elysia();
    const seen: string[] = [];
    mountRoutes(
      app,
      routeGroup('/g')
        .onAfterResponse(() => {
          seen.push('after');
        })
        .get('/:id', ({ params }) => `id ${params.id}`),
    );
    const res = await app.handle(new Request('http://localhost/g/7'));
    expect(await res.text()).toBe('id 7');
    await Bun.sleep(0);
    expect(seen).toEqual(['after']);
  });
});

describe('the app', () => {
  it('builds each route once: one Elysia `add` per route it serves (nested instances built each route again at every level)', () => {
    // `add` is Elysia's private method behind every route-declaring call.
    const add = spyOn(Elysia.prototype as unknown as { add: (...args: unknown[]) => unknown }, 'add');
    try {
      const { app } = makeTestApp();
      expect(app.routes.length).toBeGreaterThan(300);
      expect(add.mock.calls.length).toBe(app.routes.length);
    } finally {
      add.mockRestore();
    }
  });
});
