import { describe, expect, it } from 'bun:test';
import type { Permission } from '../../core/permissions';
import { systemPrincipal } from '../../core/principal';
import { builtInRoleId, createRole } from '../roles/service';
import { createToken } from '../tokens/service';
import { errorBody, panelApp } from './test-support';

type App = ReturnType<typeof panelApp>;
const ids = (res: { body: Array<{ _id: number }> }) => res.body.map((p) => p._id);

/** A token for a new role holding `permissions`, and that role's id (to put in a panel's `roles`). */
function roleToken(t: App, name: string, permissions: Permission[]): { token: string; roleId: number } {
  const role = createRole(t.deps, systemPrincipal(), { name, permissions });
  const token = createToken(t.deps, systemPrincipal(), { displayName: name, roleId: role._id }).token ?? '';
  return { token, roleId: role._id };
}

function integrationToken(t: App, subsystemIds: number[]): string {
  const roleId = builtInRoleId(t.deps, 'integration');
  return createToken(t.deps, systemPrincipal(), { displayName: 'int', roleId, subsystemIds }).token ?? '';
}

describe('GET /controlpanels', () => {
  async function seeded() {
    const t = panelApp();
    const main = await t.register({ displayName: 'Main Stage', description: 'front of house' });
    const side = await t.register({ externalRef: 'side', active: false });
    const light = await t.register({ subsystemExternalId: 'light', externalRef: 'desk', description: 'STAGE lights' });
    const a1 = await t.offer(main._id, { displayName: 'Lobby' });
    const a2 = await t.offer(light._id, { active: false });
    return { t, main, side, light, a1, a2 };
  }

  it('lists both kinds in _id order with X-Total-Count', async () => {
    const { t, main, side, light, a1, a2 } = await seeded();
    const res = await t.call('GET', '/controlpanels', { as: 'viewer' });
    expect(res.status).toBe(200);
    expect(ids(res)).toEqual([main._id, side._id, light._id, a1._id, a2._id]);
    expect(res.headers.get('x-total-count')).toBe('5');
  });

  it('filters by location (alias type), subsystem, externalRef, registeredPanelId, active and fuzzy', async () => {
    const { t, main, side, light, a1, a2 } = await seeded();
    const cases: Array<[Record<string, string>, number[]]> = [
      [{ location: 'registered' }, [main._id, side._id, light._id]],
      [{ type: 'available' }, [a1._id, a2._id]],
      [{ subsystemExternalId: 'light' }, [light._id, a2._id]],
      [{ subsystemExternalId: 'light', location: 'registered' }, [light._id]],
      [{ externalRef: 'side' }, [side._id]],
      [{ registeredPanelId: String(main._id) }, [a1._id]],
      [{ active: 'false' }, [side._id, a2._id]],
      [{ active: 'true', location: 'available' }, [a1._id]],
      [{ fuzzy: 'stage' }, [main._id, light._id]],
      [{ fuzzy: 'LOBBY' }, [a1._id]],
      [{ externalRef: 'nothing' }, []],
    ];
    for (const [query, expected] of cases) {
      const res = await t.call('GET', '/controlpanels', { as: 'admin', query });
      expect({ query, ids: ids(res) }).toEqual({ query, ids: expected });
      expect(res.headers.get('x-total-count')).toBe(String(expected.length));
    }
  });

  it('pages with limit/offset, X-Total-Count and Link', async () => {
    const { t, side, light } = await seeded();
    const res = await t.call('GET', '/controlpanels', { as: 'admin', query: { limit: 2, offset: 1 } });
    expect(ids(res)).toEqual([side._id, light._id]);
    expect(res.headers.get('x-total-count')).toBe('5');
    expect(res.headers.get('link')).toBe('</api/v1/controlpanels?limit=2&offset=3>; rel="next"');
    const last = await t.call('GET', '/controlpanels', { as: 'admin', query: { limit: 2, offset: 3 } });
    expect(last.headers.get('link')).toBeNull();
  });

  it.each([
    [{ active: 'yes' }, 'query active must be one of: true, false', '/active', 'must be one of: true, false'],
    [
      { registeredPanelId: 'x' },
      'query registeredPanelId must be a panel _id',
      '/registeredPanelId',
      'must be a panel _id',
    ],
    [
      { location: 'x' },
      'query location must be one of: registered, available',
      '/location',
      'must be one of: registered, available',
    ],
    [{ limit: '10001' }, 'limit must be an integer from 1 to 10000', '/limit', 'must be an integer from 1 to 10000'],
  ])('refuses the query %j with 400', async (query, message, path, detail) => {
    const t = panelApp();
    const res = await t.call('GET', '/controlpanels', { as: 'admin', query });
    expect(res.body).toEqual(errorBody(res, 400, 'bad_request', message, [{ path, message: detail }]));
  });
});

describe('reading without subsystems:read (rule 4 and 5)', () => {
  async function seeded() {
    const t = panelApp();
    const staff = roleToken(t, 'staff', ['variables:read']);
    const main = await t.register();
    const off = await t.register({ externalRef: 'off', active: false });
    const open = await t.offer(main._id, { roles: [staff.roleId] });
    const notMine = await t.offer(main._id, { roles: [builtInRoleId(t.deps, 'viewer')] });
    const inactive = await t.offer(main._id, { roles: [staff.roleId], active: false });
    const hiddenByRegistered = await t.offer(off._id, { roles: [staff.roleId] });
    return { t, staff, main, open, notMine, inactive, hiddenByRegistered };
  }

  it('lists only the available panels the caller may open', async () => {
    const { t, staff, open } = await seeded();
    for (const query of [{ location: 'available' }, {}] as Array<Record<string, string>>) {
      const res = await t.call('GET', '/controlpanels', { token: staff.token, query });
      expect(ids(res)).toEqual([open._id]);
      expect(res.headers.get('x-total-count')).toBe('1');
    }
    const registered = await t.call('GET', '/controlpanels', { token: staff.token, query: { location: 'registered' } });
    expect(registered.body).toEqual(
      errorBody(registered, 403, 'forbidden', 'this needs the subsystems:read permission'),
    );
  });

  it('reads one panel only when the caller may open it', async () => {
    const { t, staff, main, open, notMine, inactive, hiddenByRegistered } = await seeded();
    expect((await t.call('GET', `/controlpanels/${open._id}`, { token: staff.token })).body).toEqual(open);
    for (const id of [main._id, notMine._id, inactive._id, hiddenByRegistered._id]) {
      const res = await t.call('GET', `/controlpanels/${id}`, { token: staff.token });
      expect(res.body).toEqual(errorBody(res, 403, 'forbidden', 'this needs the subsystems:read permission'));
    }
  });

  it('a users:write holder may open (and so read) every active available panel', async () => {
    const { t, open, notMine } = await seeded();
    const admin = roleToken(t, 'useradmin', ['users:write']);
    const res = await t.call('GET', '/controlpanels', { token: admin.token, query: { location: 'available' } });
    expect(ids(res)).toEqual([open._id, notMine._id]);
  });

  it('GET /controlpanels/:id answers 404 for an unknown panel', async () => {
    const t = panelApp();
    const res = await t.call('GET', '/controlpanels/77', { as: 'viewer' });
    expect(res.body).toEqual(errorBody(res, 404, 'not_found', 'controlpanel 77 not found'));
  });
});

describe('writing (rule 5)', () => {
  const body = { subsystemExternalId: 'light', externalRef: 'desk', connection: { url: 'http://desk/' } };

  it('the integration role registers, updates and deletes panels of any subsystem when unrestricted', async () => {
    const t = panelApp();
    const token = t.tokenFor('integration');
    const res = await t.call('POST', '/controlpanels', { token, body });
    expect(res.status).toBe(201);
    expect((await t.call('PATCH', `/controlpanels/${res.body._id}`, { token, body: { active: false } })).status).toBe(
      200,
    );
    expect((await t.call('DELETE', `/controlpanels/${res.body._id}`, { token })).status).toBe(204);
  });

  it('a trusted-network caller acts as the integration role', async () => {
    const t = panelApp();
    const res = await t.call('PUT', '/controlpanels', { from: '127.0.0.1', body });
    expect(res.status).toBe(201);
    const anon = await t.call('PUT', '/controlpanels', { from: '192.0.2.7', body });
    expect(anon.status).toBe(401);
  });

  it('a token limited to some subsystems writes only their panels, and nothing changes otherwise', async () => {
    const t = panelApp();
    const lightPanel = await t.register({ subsystemExternalId: 'light' });
    const forMedia = [integrationToken(t, [t.media._id]), t.tokenWith(['subsystems:write'], [t.media._id])];
    const ownStatuses: number[] = [];
    for (const token of forMedia) {
      const denied = 'this credential does not act for that subsystem';
      const create = await t.call('POST', '/controlpanels', { token, body });
      expect(create.body).toEqual(errorBody(create, 403, 'forbidden', denied));
      const update = await t.call('PUT', `/controlpanels/${lightPanel._id}`, { token, body: { description: 'x' } });
      expect(update.body).toEqual(errorBody(update, 403, 'forbidden', denied));
      const upsert = await t.call('PUT', '/controlpanels', { token, body: { _id: lightPanel._id, description: 'x' } });
      expect(upsert.body).toEqual(errorBody(upsert, 403, 'forbidden', denied));
      // An `_id` that names no panel is ignored: light's key it comes with is refused as without it.
      for (const externalRef of ['main', 'other']) {
        const stale = await t.call('PUT', '/controlpanels', {
          token,
          body: { ...body, _id: lightPanel._id + 1000, subsystemExternalId: 'light', externalRef, description: 'x' },
        });
        expect(stale.body).toEqual(errorBody(stale, 403, 'forbidden', denied));
      }
      const del = await t.call('DELETE', `/controlpanels/${lightPanel._id}`, { token });
      expect(del.body).toEqual(errorBody(del, 403, 'forbidden', denied));
      const own = await t.call('POST', '/controlpanels', { token, body: { ...body, subsystemExternalId: 'media' } });
      ownStatuses.push(own.status);
    }
    // The first token registers media's panel, the second re-registers the same one.
    expect(ownStatuses).toEqual([201, 200]);
    expect(await t.get(lightPanel._id)).toEqual(lightPanel);
  });

  it('available panels need users:write: integration and operator are refused', async () => {
    const t = panelApp();
    const reg = await t.register();
    const av = await t.offer(reg._id);
    for (const token of [t.tokenFor('integration'), t.tokenFor('operator')]) {
      const create = await t.call('POST', '/controlpanels', {
        token,
        query: { location: 'available' },
        body: { registeredPanelId: reg._id },
      });
      expect(create.body).toEqual(errorBody(create, 403, 'forbidden', 'this needs the users:write permission'));
      const update = await t.call('PUT', `/controlpanels/${av._id}`, {
        token,
        query: { type: 'available' },
        body: { roles: [] },
      });
      expect(update.status).toBe(403);
      expect((await t.call('DELETE', `/controlpanels/${av._id}`, { token })).status).toBe(403);
    }
    expect(await t.all()).toHaveLength(2);
    expect(await t.get(av._id)).toEqual(av);
  });

  it('a users:write holder manages available panels but cannot register panels', async () => {
    const t = panelApp();
    const reg = await t.register();
    const { token } = roleToken(t, 'useradmin', ['users:write']);
    const create = await t.call('POST', '/controlpanels', {
      token,
      body: { location: 'available', registeredPanelId: reg._id },
    });
    expect(create.status).toBe(201);
    const update = await t.call('PATCH', `/controlpanels/${create.body._id}`, { token, body: { displayName: 'Mine' } });
    expect(update.body.displayName).toBe('Mine');
    expect((await t.call('DELETE', `/controlpanels/${create.body._id}`, { token })).status).toBe(204);
    const register = await t.call('POST', '/controlpanels', { token, body });
    expect(register.body).toEqual(errorBody(register, 403, 'forbidden', 'this needs the subsystems:write permission'));
    const change = await t.call('PATCH', `/controlpanels/${reg._id}`, { token, body: { description: 'x' } });
    expect(change.body).toEqual(errorBody(change, 403, 'forbidden', 'this needs the subsystems:write permission'));
  });

  it('a viewer is refused before its body is read or the subsystem looked up, and nothing is stored', async () => {
    const t = panelApp();
    const res = await t.call('POST', '/controlpanels', {
      as: 'viewer',
      body: { subsystemExternalId: 'ghost', externalRef: 'x' },
    });
    expect(res.body).toEqual(
      errorBody(res, 403, 'forbidden', 'this needs one of the permissions subsystems:write, users:write'),
    );
    expect(await t.all()).toEqual([]);
    expect(t.events).toEqual([]);
  });

  it('every route needs a credential', async () => {
    const t = panelApp();
    for (const [method, path] of [
      ['GET', '/controlpanels'],
      ['POST', '/controlpanels'],
      ['PUT', '/controlpanels'],
      ['GET', '/controlpanels/1'],
      ['PUT', '/controlpanels/1'],
      ['PATCH', '/controlpanels/1'],
      ['DELETE', '/controlpanels/1'],
    ] as const) {
      expect((await t.call(method, path, { body: {} })).status).toBe(401);
    }
  });
});
