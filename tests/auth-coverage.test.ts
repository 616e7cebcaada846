/**
 * Auth for every route, generated from the route table (STYLE.md "Tests"): each route declares a rule;
 * without a credential it answers 401 (except the public allowlist), and with a credential holding
 * every permission but the route's own it answers 403. A route added later is covered the moment it exists.
 */
import { describe, expect, it } from 'bun:test';
import { PERMISSIONS } from '../src/core/permissions';
import { type AuthMeta, missingPermissionMessage } from '../src/http/auth';
import { makeTestApp } from './helpers/app';

/** The routes anyone may call (C: Authentication). */
const PUBLIC = new Set([
  'GET /api/v1/health',
  'GET /api/v1/version',
  'POST /api/v1/auth/login',
  'GET /api/v1/openapi.json',
]);

const harness = makeTestApp();
const routes = harness.app.routes
  .filter((r) => r.path.startsWith('/api/'))
  .map((r) => ({
    method: r.method,
    path: r.path,
    auth: (r.hooks.detail as Record<string, unknown> | undefined)?.['x-pms-auth'] as AuthMeta | undefined,
  }));

const concrete = (path: string) => path.replace(/:[^/]+/g, '1');

describe('route table', () => {
  it('has routes', () => {
    expect(routes.length).toBeGreaterThan(10);
  });
  it.each(routes.map((r) => [`${r.method} ${r.path}`, r] as const))('%s declares an auth rule', (_, route) => {
    expect(route.auth).toBeDefined();
    expect(route.auth?.public ?? false).toBe(PUBLIC.has(`${route.method} ${route.path.replace(/\/$/, '')}`));
  });
});

describe('without a credential', () => {
  // The WebSocket may open without a credential (it then authenticates by its first message); its
  // auth is tested in src/realtime/ws.test.ts.
  const guarded = routes.filter((r) => !r.auth?.public && r.method !== 'WS');
  it.each(guarded.map((r) => [`${r.method} ${r.path}`, r] as const))('%s answers 401', async (_, route) => {
    const res = await harness.call(route.method, concrete(route.path), { body: {} });
    expect(res.status).toBe(401);
    expect(res.body).toEqual({
      statusCode: 401,
      code: 'unauthorized',
      message: 'authentication required',
      requestId: res.headers.get('x-request-id'),
    });
  });
});

describe('without the permission', () => {
  const guarded = routes.filter((r) => r.auth?.permission);
  it.each(guarded.map((r) => [`${r.method} ${r.path} (${r.auth?.anyOf.join(' or ')})`, r] as const))(
    '%s answers 403',
    async (_, route) => {
      const token = harness.tokenWith(PERMISSIONS.filter((p) => !route.auth?.anyOf.includes(p)));
      const res = await harness.call(route.method, concrete(route.path), { token, body: {} });
      expect(res.status).toBe(403);
      expect(res.body).toEqual({
        statusCode: 403,
        code: 'forbidden',
        message: route.auth ? missingPermissionMessage(route.auth) : '',
        requestId: res.headers.get('x-request-id'),
      });
    },
  );
});
