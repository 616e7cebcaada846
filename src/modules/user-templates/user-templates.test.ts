import { describe, expect, it } from 'bun:test';
import { auditEntries, makeTestApp, type TestApp } from '../../../tests/helpers/app';
import { PERMISSIONS } from '../../core/permissions';
import type { BusEvent } from '../../realtime/bus';
import { availablePanel, errorBody, makeUser, PASSWORD, registeredPanel, roleId } from '../users/test-support';

async function makeTemplate(h: TestApp, body: Record<string, unknown>) {
  const res = await h.call('POST', '/usertemplates', { as: 'admin', body });
  expect(res.status).toBe(201);
  return res.body;
}

describe('/usertemplates', () => {
  it('creates with defaults, Location and an event; lists and reads', async () => {
    const h = makeTestApp();
    h.tokenFor('admin');
    const seen: BusEvent[] = [];
    h.deps.bus.subscribe((e) => seen.push(e));
    const res = await h.call('POST', '/usertemplates', { as: 'admin', body: { displayName: ' Front desk ', _id: 9 } });
    expect(res.status).toBe(201);
    expect(res.headers.get('location')).toBe(`/api/v1/usertemplates/${res.body._id}`);
    expect(res.body).toEqual({
      _id: res.body._id,
      _createdAt: '2026-01-15T12:00:00.000Z',
      _updatedAt: '2026-01-15T12:00:00.000Z',
      _links: { self: `/api/v1/usertemplates/${res.body._id}` },
      displayName: 'Front desk',
      description: '',
      roleIds: [roleId(h, 'viewer')],
      controlpanels: [],
      preferences: {},
      isDefault: false,
    });
    expect(seen.map((e) => e.type)).toEqual(['usertemplate.created', 'log.created']);
    expect(seen[0]?.data._id).toBe(res.body._id);
    const list = await h.call('GET', '/usertemplates', { as: 'viewer' });
    expect(list.body).toEqual([res.body]);
    expect(list.headers.get('x-total-count')).toBe('1');
    expect((await h.call('GET', `/usertemplates/${res.body._id}`, { as: 'viewer' })).body).toEqual(res.body);
    const missing = await h.call('GET', '/usertemplates/77', { as: 'viewer' });
    expect(missing.body).toEqual(errorBody(missing, 404, 'not_found', 'user template 77 not found'));
  });

  it('refuses a taken displayName (409), unknown roles and panels (400), and changes nothing', async () => {
    const h = makeTestApp();
    const reg = registeredPanel(h);
    const panel = availablePanel(h, reg, []);
    const tpl = await makeTemplate(h, { displayName: 'Ops' });
    const taken = await h.call('POST', '/usertemplates', { as: 'admin', body: { displayName: 'Ops' } });
    expect(taken.body).toEqual(errorBody(taken, 409, 'conflict', 'another user template already has this displayName'));
    const rename = await h.call('PATCH', `/usertemplates/${tpl._id}`, { as: 'admin', body: { displayName: 'Ops' } });
    expect(rename.status).toBe(200);
    const role = await h.call('POST', '/usertemplates', { as: 'admin', body: { displayName: 'R', roleIds: [999] } });
    expect(role.body).toEqual(
      errorBody(role, 400, 'validation', 'roleIds.0 names a role that does not exist', [
        { path: '/roleIds/0', message: 'names a role that does not exist' },
      ]),
    );
    for (const bad of [reg, 999]) {
      const res = await h.call('PUT', `/usertemplates/${tpl._id}`, {
        as: 'admin',
        body: { description: 'changed', controlpanels: [panel, bad] },
      });
      expect(res.body).toEqual(
        errorBody(res, 400, 'validation', 'controlpanels.1 names an available control panel that does not exist', [
          { path: '/controlpanels/1', message: 'names an available control panel that does not exist' },
        ]),
      );
    }
    expect((await h.call('GET', '/usertemplates', { as: 'admin' })).body).toEqual([tpl]);
    const missing = await h.call('PATCH', '/usertemplates/404', { as: 'admin', body: { description: 'x' } });
    expect(missing.body).toEqual(errorBody(missing, 404, 'not_found', 'user template 404 not found'));
  });

  it('refuses roles holding permissions the caller lacks (403)', async () => {
    const h = makeTestApp();
    const token = h.tokenWith(['users:read', 'users:write']);
    const res = await h.call('POST', '/usertemplates', {
      token,
      body: { displayName: 'T', roleIds: [roleId(h, 'admin')] },
    });
    const missing = PERMISSIONS.find((p) => p !== 'users:read' && p !== 'users:write');
    expect(res.body).toEqual(errorBody(res, 403, 'forbidden', `role admin holds ${missing}, which you do not hold`));
    expect((await h.call('GET', '/usertemplates', { as: 'admin' })).body).toEqual([]);
  });

  it('isDefault true clears it on every other template', async () => {
    const h = makeTestApp();
    const a = await makeTemplate(h, { displayName: 'A', isDefault: true });
    const b = await makeTemplate(h, { displayName: 'B', isDefault: 'true' });
    const defaults = async () =>
      (await h.call('GET', '/usertemplates', { as: 'admin' })).body.map((t: { isDefault: boolean }) => t.isDefault);
    expect(b.isDefault).toBe(true);
    expect(await defaults()).toEqual([false, true]);
    await h.call('PATCH', `/usertemplates/${a._id}`, { as: 'admin', body: { isDefault: true } });
    expect(await defaults()).toEqual([true, false]);
    await h.call('PATCH', `/usertemplates/${a._id}`, { as: 'admin', body: { isDefault: false } });
    expect(await defaults()).toEqual([false, false]);
  });

  it('updates the fields present and merges preferences', async () => {
    const h = makeTestApp();
    const tpl = await makeTemplate(h, { displayName: 'P', preferences: { theme: 'dark', lang: 'en' } });
    h.clock.advance(5000);
    const res = await h.call('PUT', `/usertemplates/${tpl._id}`, {
      as: 'admin',
      body: { ...tpl, description: 'Night shift', roleIds: [roleId(h, 'operator')], preferences: { lang: null } },
    });
    expect(res.body).toEqual({
      ...tpl,
      _updatedAt: '2026-01-15T12:00:05.000Z',
      description: 'Night shift',
      roleIds: [roleId(h, 'operator')],
      preferences: { theme: 'dark' },
    });
  });
});

describe('templates and users (§1.2 rule 1)', () => {
  it('a new user takes omitted fields from templateId, else from the default template, else the built-in defaults', async () => {
    const h = makeTestApp();
    const operator = roleId(h, 'operator');
    const panel = availablePanel(h, registeredPanel(h), [operator]);
    const ops = await makeTemplate(h, {
      displayName: 'Ops',
      roleIds: [operator],
      controlpanels: [panel],
      preferences: { theme: 'dark' },
    });
    const fromTemplate = await makeUser(h, 'u1', { templateId: ops._id, displayName: 'Own name' });
    expect(fromTemplate).toMatchObject({
      templateId: ops._id,
      displayName: 'Own name',
      roleIds: [operator],
      controlpanels: [panel],
      preferences: { theme: 'dark' },
    });
    const overridden = await makeUser(h, 'u2', {
      templateId: ops._id,
      roleIds: [roleId(h, 'viewer')],
      preferences: {},
    });
    expect(overridden).toMatchObject({ roleIds: [roleId(h, 'viewer')], controlpanels: [], preferences: {} });
    expect((await makeUser(h, 'u3')).templateId).toBeNull();

    await h.call('PATCH', `/usertemplates/${ops._id}`, { as: 'admin', body: { isDefault: true } });
    expect(await makeUser(h, 'u4')).toMatchObject({ templateId: ops._id, roleIds: [operator] });
    expect(await makeUser(h, 'u5', { templateId: null })).toMatchObject({
      templateId: null,
      roleIds: [roleId(h, 'viewer')],
    });
  });

  it('template edits and deletion leave existing users as they are, with templateId null after deletion', async () => {
    const h = makeTestApp();
    const operator = roleId(h, 'operator');
    const tpl = await makeTemplate(h, { displayName: 'T', roleIds: [operator], preferences: { a: 1 } });
    const user = await makeUser(h, 'keeper', { templateId: tpl._id });
    await h.call('PATCH', `/usertemplates/${tpl._id}`, { as: 'admin', body: { roleIds: [roleId(h, 'viewer')] } });
    expect((await h.call('GET', `/users/${user._id}`, { as: 'admin' })).body).toEqual(user);
    const del = await h.call('DELETE', `/usertemplates/${tpl._id}`, { as: 'admin' });
    expect(del.status).toBe(204);
    expect((await h.call('GET', `/usertemplates/${tpl._id}`, { as: 'admin' })).status).toBe(404);
    expect((await h.call('DELETE', `/usertemplates/${tpl._id}`, { as: 'admin' })).status).toBe(404);
    const after = await h.call('GET', `/users/${user._id}`, { as: 'admin' });
    expect(after.body).toEqual({ ...user, templateId: null });
    const login = await h.call('POST', '/auth/login', { body: { username: 'keeper', password: PASSWORD } });
    expect(login.status).toBe(200);
  });
});

describe('user templates audit', () => {
  it('admin-token writes leave audit entries naming the template and changed fields; a refused one none', async () => {
    const h = makeTestApp();
    const tpl = await makeTemplate(h, { displayName: 'Crew' });
    const refused = await h.call('PATCH', `/usertemplates/${tpl._id}`, { as: 'admin', body: { roleIds: [999] } });
    expect(refused.status).toBe(400);
    await h.call('PATCH', `/usertemplates/${tpl._id}`, { as: 'admin', body: { description: 'stage crew' } });
    expect((await h.call('DELETE', `/usertemplates/${tpl._id}`, { as: 'admin' })).status).toBe(204);
    expect(auditEntries(h)).toEqual([
      {
        key: 'usertemplate.created',
        value: `user template ${tpl._id} (Crew) created: displayName, description, roleIds, controlpanels, preferences, isDefault`,
        createdBy: 'test admin',
      },
      {
        key: 'usertemplate.updated',
        value: `user template ${tpl._id} (Crew) updated: description`,
        createdBy: 'test admin',
      },
      { key: 'usertemplate.deleted', value: `user template ${tpl._id} (Crew) deleted`, createdBy: 'test admin' },
    ]);
  });
});

describe('a user template update that changes nothing', () => {
  it('{} or the template sent back: 200 with it as it is, _updatedAt kept, no usertemplate.updated, no audit entry', async () => {
    const h = makeTestApp();
    const made = await makeTemplate(h, { displayName: 'Front desk', description: 'd', isDefault: true });
    const audits = auditEntries(h).length;
    const seen: BusEvent[] = [];
    h.deps.bus.subscribe((e) => seen.push(e));
    h.clock.advance(1000);
    for (const [method, body] of [
      ['PATCH', {}],
      ['PUT', {}],
      ['PUT', made],
      ['PATCH', { displayName: 'Front desk', isDefault: true }],
    ] as const) {
      const res = await h.call(method, `/usertemplates/${made._id}`, { as: 'admin', body });
      expect({ method, status: res.status, body: res.body }).toEqual({ method, status: 200, body: made });
    }
    expect(seen).toEqual([]);
    expect(auditEntries(h)).toHaveLength(audits);
  });
});

describe('a template giving roles the caller lacks', () => {
  it('cannot be changed, made the default or deleted by a users:write holder (403, nothing changed)', async () => {
    const h = makeTestApp();
    const admins = await makeTemplate(h, { displayName: 'Admins', roleIds: [roleId(h, 'admin')] });
    const desk = await makeTemplate(h, { displayName: 'Desk', roleIds: [roleId(h, 'viewer')] });
    const manager = h.tokenWith(['users:read', 'users:write']);
    const missing = PERMISSIONS.find((p) => p !== 'users:read' && p !== 'users:write');
    const before = (await h.call('GET', '/usertemplates', { as: 'admin' })).body;
    for (const [method, body] of [
      ['PATCH', { isDefault: true }],
      ['PUT', { preferences: { theme: 'x' } }],
      ['PATCH', { roleIds: [roleId(h, 'viewer')] }],
      ['DELETE', undefined],
    ] as const) {
      const res = await h.call(method, `/usertemplates/${admins._id}`, { token: manager, body });
      expect({ method, body: res.body }).toEqual({
        method,
        body: errorBody(res, 403, 'forbidden', `user template Admins holds ${missing}, which you do not hold`),
      });
    }
    expect((await h.call('GET', '/usertemplates', { as: 'admin' })).body).toEqual(before);
    // A template the caller covers stays theirs to change; the administrators may change either.
    const viewerManager = h.tokenWith(['users:read', 'users:write', ...PERMISSIONS.filter((p) => p.endsWith(':read'))]);
    const own = await h.call('PATCH', `/usertemplates/${desk._id}`, {
      token: viewerManager,
      body: { isDefault: true },
    });
    expect(own.body.isDefault).toBe(true);
    const byAdmin = await h.call('PATCH', `/usertemplates/${admins._id}`, { as: 'admin', body: { description: 'x' } });
    expect(byAdmin.status).toBe(200);
  });
});
