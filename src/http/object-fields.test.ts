/**
 * A body, and every object field in it, is an object (C: Requests, §0.2 metadata): a string, number,
 * array or null in its place is refused with 400 `validation` and changes nothing. Walked over the
 * whole route table, then checked exactly on the instances first found with real clients.
 */
import { describe, expect, it } from 'bun:test';
import { addSubsystem, makeTestApp, type TestApp } from '../../tests/helpers/app';
import { errorBody, validationBody } from '../../tests/helpers/errors';
import { storedRows as stored } from '../../tests/helpers/stored';
import type { AuthMeta } from './auth';

const NOT_OBJECTS = ['"str"', '42', '[1,2]', 'null'];
const WRITES = new Set(['POST', 'PUT', 'PATCH']);

const send = (t: TestApp, method: string, path: string, rawBody: string) =>
  t.call(method, path, { as: 'admin', rawBody, headers: { 'content-type': 'application/json' } });

const notAnObjectBody = (res: { headers: Headers }) =>
  errorBody(res, 400, 'validation', 'body must be an object', [{ path: '/', message: 'must be an object' }]);

type JsonSchema = { type?: string; properties?: Record<string, JsonSchema> };

/** The served OpenAPI body schema of every write route, by `METHOD /api/v1/path/{param}`. */
async function bodySchemas(t: TestApp): Promise<Map<string, JsonSchema | undefined>> {
  const doc = (await t.call('GET', '/openapi.json', { as: 'admin' })).body as {
    paths: Record<string, Record<string, { requestBody?: { content: Record<string, { schema: JsonSchema }> } }>>;
  };
  const out = new Map<string, JsonSchema | undefined>();
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(item)) {
      out.set(`${method.toUpperCase()} ${path}`, op.requestBody?.content['application/json']?.schema);
    }
  }
  return out;
}

describe('non-object bodies', () => {
  it('every write route refuses a string, number, array or null body before doing anything', async () => {
    const t = makeTestApp();
    await addSubsystem(t, 'media');
    const schemas = await bodySchemas(t);
    const before = stored(t);
    let walked = 0;
    for (const route of t.app.routes) {
      if (!WRITES.has(route.method) || !route.path.startsWith('/api/v1/')) continue;
      const detail = (route.hooks.detail ?? {}) as { 'x-pms-auth'?: AuthMeta };
      // The heartbeat never reads its body (§3: empty or ignored).
      // A route that takes no body, or takes raw bytes (uploads: any body is content), is not a JSON write.
      if (detail['x-pms-auth']?.ignoreBody || detail['x-pms-auth']?.streamBody) continue;
      const openApiPath = route.path.replace(/:([^/]+)/g, '{$1}');
      const schema = schemas.get(`${route.method} ${openApiPath}`);
      const path = route.path.replace(/:[^/]+/g, '1').replace('/api/v1', '');
      for (const raw of NOT_OBJECTS) {
        // A bare array of panel ids is the one non-object body a schema asks for.
        if (raw.startsWith('[') && schema?.type !== 'object' && schema !== undefined) continue;
        const res = await send(t, route.method, path, raw);
        expect({ route: `${route.method} ${route.path}`, raw, status: res.status }).toEqual({
          route: `${route.method} ${route.path}`,
          raw,
          status: 400,
        });
        if (schema === undefined || schema.type === 'object') expect(res.body).toEqual(notAnObjectBody(res));
      }
      walked += 1;
    }
    expect(walked).toBeGreaterThan(80);
    expect(stored(t)).toEqual(before);
  });

  it('the instances found with real clients answer the one body and store nothing; an empty body is {}', async () => {
    const t = makeTestApp();
    const s = await addSubsystem(t, 'media');
    const event = await t.call('POST', '/events', {
      as: 'admin',
      body: { subsystemId: s._id, externalRef: 'intro', command: 'PLAY' },
    });
    const before = stored(t);
    for (const [method, path] of [
      ['PATCH', `/events/${event.body._id}`],
      ['PUT', `/events/${event.body._id}`],
      ['PUT', `/subsystems/${s._id}`],
      ['PATCH', `/subsystems/${s._id}`],
    ] as const) {
      for (const raw of NOT_OBJECTS) {
        const res = await send(t, method, path, raw);
        expect(res.status).toBe(400);
        expect(res.body).toEqual(notAnObjectBody(res));
      }
    }
    expect(stored(t)).toEqual(before);
    // Wherever no field is required, an empty body reads as {} (the heartbeat is always sent empty).
    expect((await send(t, 'PATCH', `/subsystems/${s._id}`, '')).status).toBe(200);
  });
});

describe('object fields', () => {
  it('every object field of every write body refuses a string and an array at its path', async () => {
    const t = makeTestApp();
    const schemas = await bodySchemas(t);
    let fields = 0;
    for (const [route, schema] of schemas) {
      const [method = '', template = ''] = route.split(' ');
      if (!WRITES.has(method) || schema?.type !== 'object') continue;
      const path = template.replace(/\{[^}]+\}/g, '1').replace('/api/v1', '');
      for (const [name, field] of Object.entries(schema.properties ?? {})) {
        if (field.type !== 'object') continue;
        fields += 1;
        for (const value of ['str', ['a', 'b']]) {
          const res = await t.call(method, path, { as: 'admin', body: { [name]: value } });
          expect({ route, name, status: res.status }).toEqual({ route, name, status: 400 });
          expect(res.body.detail).toContainEqual({ path: `/${name}`, message: expect.any(String) });
        }
      }
    }
    expect(fields).toBeGreaterThan(20);
  });

  it('metadata, preferences and webhook headers: 400 at the field, stored data unchanged', async () => {
    const t = makeTestApp();
    const s = await addSubsystem(t, 'media', { metadata: { room: 'A' } });
    const event = await t.call('POST', '/events', {
      as: 'admin',
      body: { subsystemId: s._id, externalRef: 'intro', command: 'PLAY', metadata: { k: 1 } },
    });
    const user = await t.call('POST', '/users', {
      as: 'admin',
      body: { username: 'ann', password: 'ann-password-1', preferences: { theme: 'dark' } },
    });
    const template = await t.call('POST', '/usertemplates', {
      as: 'admin',
      body: { displayName: 'Desk', preferences: { theme: 'dark' } },
    });
    const hook = await t.call('POST', '/webhook', {
      as: 'admin',
      body: { displayName: 'Ops', url: 'https://hooks.example.com/in', headers: { 'X-Key': 'k' } },
    });
    for (const res of [event, user, template, hook]) expect(res.status).toBe(201);
    const before = stored(t);
    for (const [method, path, field] of [
      ['PATCH', `/events/${event.body._id}`, 'metadata'],
      ['PUT', `/subsystems/${s._id}`, 'metadata'],
      ['PATCH', `/users/${user.body._id}`, 'preferences'],
      ['PATCH', `/usertemplates/${template.body._id}`, 'preferences'],
      ['PATCH', `/webhook/${hook.body._id}`, 'headers'],
    ] as const) {
      for (const value of ['str', ['a', 'b'], 5]) {
        const res = await t.call(method, path, { as: 'admin', body: { [field]: value } });
        expect(res.body).toEqual(validationBody(res, `/${field}`, 'must be an object'));
      }
    }
    expect(stored(t)).toEqual(before);
  });
});

describe('numbers past the largest double inside metadata and preferences', () => {
  it('are 400 at their own pointer on every module that takes them, never stored as null', async () => {
    const t = makeTestApp();
    const s = await addSubsystem(t, 'media', { metadata: { room: 'A' } });
    const event = await t.call('POST', '/events', {
      as: 'admin',
      body: { subsystemId: s._id, externalRef: 'intro', command: 'PLAY', metadata: { k: 1 } },
    });
    const user = await t.call('POST', '/users', {
      as: 'admin',
      body: { username: 'ann', password: 'ann-password-1', preferences: { theme: 'dark' } },
    });
    const template = await t.call('POST', '/usertemplates', { as: 'admin', body: { displayName: 'Desk' } });
    for (const res of [event, user, template]) expect(res.status).toBe(201);
    const before = stored(t);
    const NOT_FINITE = 'is a number beyond ±1.7976931348623157e308; send it as a string';
    for (const [method, path, rawBody, at] of [
      ['PATCH', `/events/${event.body._id}`, '{"metadata": {"a": 1e400}}', '/metadata/a'],
      [
        'POST',
        '/events',
        `{"subsystemId": ${s._id}, "externalRef": "x", "metadata": {"b": [1, -1E999]}}`,
        '/metadata/b/1',
      ],
      ['PUT', `/subsystems/${s._id}`, '{"metadata": {"deep": {"n": 1e400}}}', '/metadata/deep/n'],
      ['POST', '/subsystems', '{"externalId": "new", "metadata": {"a/b": 1e309}}', '/metadata/a~1b'],
      [
        'POST',
        '/assets',
        `{"subsystemId": ${s._id}, "externalRef": "rack", "displayName": "Rack", "metadata": {"w": 1e400}}`,
        '/metadata/w',
      ],
      ['PATCH', `/users/${user.body._id}`, '{"preferences": {"zoom": 1e400}}', '/preferences/zoom'],
      [
        'POST',
        '/users',
        '{"username": "bob", "password": "bob-password-1", "preferences": {"z": 1e400}}',
        '/preferences/z',
      ],
      ['PATCH', `/usertemplates/${template.body._id}`, '{"preferences": {"z": [1e400]}}', '/preferences/z/0'],
      ['POST', '/usertemplates', '{"displayName": "Other", "preferences": {"z": -1e400}}', '/preferences/z'],
    ] as const) {
      const res = await send(t, method, path, rawBody);
      expect({ method, path, body: res.body }).toEqual({ method, path, body: validationBody(res, at, NOT_FINITE) });
    }
    expect(stored(t)).toEqual(before);
  });
});

describe('keys inside preferences', () => {
  it('follow the metadata rule (1 to 64 characters at every level): 400 at the object holding the key, nothing stored', async () => {
    const t = makeTestApp();
    const user = await t.call('POST', '/users', {
      as: 'admin',
      body: { username: 'ann', password: 'ann-password-1', preferences: { theme: 'dark' } },
    });
    const template = await t.call('POST', '/usertemplates', { as: 'admin', body: { displayName: 'Desk' } });
    const before = stored(t);
    const long = 'k'.repeat(65);
    const RULE = 'has a key that is not 1 to 64 characters long';
    for (const [method, path, body, at] of [
      ['PATCH', `/users/${user.body._id}`, { preferences: { [long]: 1 } }, '/preferences'],
      ['PATCH', `/users/${user.body._id}`, { preferences: { grid: { '': 1 } } }, '/preferences/grid'],
      [
        'POST',
        '/users',
        { username: 'bob', password: 'bob-password-1', preferences: { a: { [long]: 1 } } },
        '/preferences/a',
      ],
      ['PUT', `/usertemplates/${template.body._id}`, { preferences: { [long]: true } }, '/preferences'],
      ['POST', '/usertemplates', { displayName: 'Other', preferences: { a: { b: { '': 1 } } } }, '/preferences/a/b'],
    ] as const) {
      const res = await t.call(method, path, { as: 'admin', body });
      expect({ method, path, body: res.body }).toEqual({ method, path, body: validationBody(res, at, RULE) });
    }
    expect(stored(t)).toEqual(before);
  });
});
