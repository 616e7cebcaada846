/**
 * GET then PUT of the same body (C: Requests): clients fetch an object, change two fields and PUT the
 * whole thing back, so read-only and derived fields in a body are ignored. For every route pair
 * `GET /…/:id` + `PUT /…/:id` in the route table, a typical entity (or a built-in one) is read and
 * its body sent back unchanged: the answer is 2xx and the entity reads the same afterwards.
 *
 * Creating an entity generically is not possible (each resource has its own required fields and
 * owners), so `MAKERS` names, per PUT route, how to make one. A PUT /:id route without an entry fails
 * the test: a new resource cannot skip the rule by being forgotten here.
 */
import { describe, expect, it } from 'bun:test';
import { builtInRoleId } from '../src/modules/roles/service';
import { addSubsystem, makeTestApp, type TestApp } from './helpers/app';

/** Makes an entity (as admin) and returns the concrete path of its `GET /:id`. */
type Maker = (t: TestApp) => Promise<string>;

/** A maker whose resource documents fields a PUT of the same body moves (and why). */
interface Changing {
  make: Maker;
  mayChange: string[];
  why: string;
}

async function made(t: TestApp, path: string, body: Record<string, unknown>, query?: Record<string, string>) {
  const res = await t.call('POST', path, { as: 'admin', body, ...(query ? { query } : {}) });
  if (res.status !== 201 && res.status !== 200) throw new Error(`POST ${path}: ${res.status} ${res.text}`);
  return res.body as { _id: number } & Record<string, unknown>;
}

async function withSubsystem(t: TestApp): Promise<{ _id: number; externalId: string }> {
  return addSubsystem(t, 'media');
}

async function event(t: TestApp) {
  await withSubsystem(t);
  return made(t, '/events', { subsystemExternalId: 'media', externalRef: 'cue-1', command: 'GO 1' });
}

async function variable(t: TestApp) {
  await withSubsystem(t);
  return made(t, '/variables', { subsystemExternalId: 'media', externalRef: 'level', description: 'fader' });
}

/** An infra asset under a site, with its subsystem's keys and an address in metadata. */
async function asset(t: TestApp) {
  await withSubsystem(t);
  const site = await made(t, '/assets', { displayName: 'Site', type: 'site' });
  return made(t, '/infra/assets', {
    subsystemExternalId: 'media',
    externalRef: 'sw-1',
    displayName: 'Switch',
    profileType: 'switch',
    parentId: site._id,
    tags: ['lan'],
    metadata: { ip_address: '192.168.1.2' },
  });
}

async function playable(t: TestApp) {
  await withSubsystem(t);
  return made(t, '/playables', { subsystemExternalId: 'media', externalRef: 'show-1', duration: 60000 });
}

/** §4: a `lastValue` sent is a value write (its time moves), a person's `displayName` marks it user-defined. */
function variableBy(make: Maker): Changing {
  return { make, mayChange: ['lastValueUpdatedAt', 'userDefinedDisplayName'], why: '§4 rules 1 and 3' };
}

const MAKERS: Record<string, Maker | Changing | { exempt: string }> = {
  '/api/v1/objects/:id': async (t) =>
    `/objects/${(await made(t, '/objects/cms-media', { name: 'clip.mp4', tags: ['lobby'], metadata: { room: 'A' } }))._id}`,
  '/api/v1/roles/:id': async (t) =>
    `/roles/${(await made(t, '/roles', { name: 'watcher', permissions: ['variables:read'] }))._id}`,
  '/api/v1/tokens/:id': async (t) =>
    `/tokens/${(await made(t, '/tokens', { displayName: 'cron', roleId: builtInRoleId(t.deps, 'viewer') }))._id}`,
  '/api/v1/subsystems/:id': async (t) =>
    `/subsystems/${(await made(t, '/subsystems', { externalId: 'media', healthCheck: { mode: 'tcp', host: '192.168.1.20', port: 80 } }))._id}`,
  '/api/v1/controlpanels/:id': async (t) => {
    await withSubsystem(t);
    const panel = await made(t, '/controlpanels', {
      subsystemExternalId: 'media',
      externalRef: 'main',
      connection: { url: 'http://192.168.1.20/panel' },
    });
    return `/controlpanels/${panel._id}`;
  },
  '/api/v1/logs/scenarios/:id': async (t) =>
    `/logs/scenarios/${(await made(t, '/logs/scenarios', { origin: 'panel', action: 'doors', displayName: 'Open doors' }))._id}`,
  '/api/v1/logs/presets/:id': async (t) =>
    `/logs/presets/${(await made(t, '/logs/presets', { name: 'errors', isGlobal: true }))._id}`,
  '/api/v1/logs/:id': { exempt: 'log entries never change: PUT answers 405 (§9)' },
  '/api/v1/alerts/:id': async (t) => {
    const v = await variable(t);
    return `/alerts/${(await made(t, '/alerts', { displayName: 'Loud', variable: v._id, operator: '>', value: '90' }))._id}`;
  },
  '/api/v1/events/:id': async (t) => `/events/${(await event(t))._id}`,
  '/api/v1/assets/:id': async (t) => `/assets/${(await asset(t))._id}`,
  '/api/v1/infra/assets/:id': async (t) => `/infra/assets/${(await asset(t))._id}`,
  '/api/v1/subsystem/:id/events/:ref': async (t) => `/subsystem/media/events/${(await event(t)).externalRef}`,
  '/api/v1/subsystems/:id/events/:ref': async (t) => `/subsystems/media/events/${(await event(t)).externalRef}`,
  '/api/v1/playables/:id': async (t) => `/playables/${(await playable(t))._id}`,
  '/api/v1/compositions/:id': async (t) => {
    await withSubsystem(t);
    const slots = [{ name: 'background' }, { name: 'logo', types: ['image'] }];
    const template = await made(t, '/playables', {
      subsystemExternalId: 'media',
      externalRef: 'lower-third',
      type: 'template',
      duration: 15000,
      metadata: { slots },
    });
    await made(t, '/parameters', { subsystemExternalId: 'media', externalRef: 'headline', playableId: template._id });
    const clip = await made(t, '/objects/cms-media', { name: 'clip.mp4' });
    const body = {
      subsystemExternalId: 'media',
      externalRef: 'news',
      displayName: 'News',
      templatePath: { _id: template._id },
      slots: [{ name: 'background', objectId: clip._id }],
      parameters: [{ parameter: 'headline', value: 'Doors at 7' }],
    };
    return `/compositions/${(await made(t, '/compositions', body))._id}`;
  },
  '/api/v1/parameters/:id': async (t) => {
    await withSubsystem(t);
    return `/parameters/${(await made(t, '/parameters', { subsystemExternalId: 'media', externalRef: 'gain' }))._id}`;
  },
  '/api/v1/presets/:id': async (t) => {
    await withSubsystem(t);
    const p = await made(t, '/parameters', { subsystemExternalId: 'media', externalRef: 'gain' });
    const body = { subsystemExternalId: 'media', displayName: 'Scene', parameters: [{ parameter: p._id, value: 'x' }] };
    return `/presets/${(await made(t, '/presets', body))._id}`;
  },
  '/api/v1/users/:id': async (t) =>
    `/users/${(await made(t, '/users', { username: 'alice', password: 'alice-password-1' }))._id}`,
  '/api/v1/usertemplates/:id': async (t) =>
    `/usertemplates/${(await made(t, '/usertemplates', { displayName: 'Front desk' }))._id}`,
  '/api/v1/variables/:id': variableBy(async (t) => `/variables/${(await variable(t))._id}`),
  '/api/v1/subsystem/:id/variables/:ref': variableBy(
    async (t) => `/subsystem/media/variables/${(await variable(t)).externalRef}`,
  ),
  '/api/v1/subsystems/:id/variables/:ref': variableBy(
    async (t) => `/subsystems/media/variables/${(await variable(t)).externalRef}`,
  ),
  '/api/v1/players/:id': async (t) => {
    await addSubsystem(t, 'wall', { type: 'screenContainer' });
    const e = await event(t);
    const list = await made(t, '/playlists', { displayName: 'Idle', entries: [{ itemType: 'EVENT', itemId: e._id }] });
    const player = await made(t, '/players', {
      externalId: 'screen-1',
      container: 'wall',
      metadata: { floor: 2 },
      defaultState: { mediaType: 'playlist', mediaId: list._id },
    });
    await made(t, '/zones', { displayName: 'Foyer', members: [player._id] });
    return `/players/${player._id}`;
  },
  '/api/v1/zones/:id': async (t) => `/zones/${(await made(t, '/zones', { displayName: 'Lobby' }))._id}`,
  '/api/v1/schedule/zones/:id': async () => '/schedule/zones/1',
  '/api/v1/schedule/calendars/:id': async (t) =>
    `/schedule/calendars/${(await made(t, '/schedule/calendars', { displayName: 'Holidays' }))._id}`,
  '/api/v1/schedule/calendars/:id/scheduledItems/:itemId': async (t) => {
    const e = await event(t);
    const item = await made(t, '/schedules', { itemType: 'EVENT', itemId: e._id, startTime: '2026-02-01T10:00:00Z' });
    return `/schedule/calendars/1/scheduledItems/${item._id}`;
  },
  '/api/v1/schedules/:id': async (t) => {
    const e = await event(t);
    const item = await made(t, '/schedules', { itemType: 'EVENT', itemId: e._id, startTime: '2026-02-01T10:00:00Z' });
    return `/schedules/${item._id}`;
  },
  '/api/v1/playlists/:id': async (t) => {
    const e = await event(t);
    const p = await made(t, '/playables', { subsystemExternalId: 'media', externalRef: 'show-1', duration: 60000 });
    const entries = [
      { itemType: 'EVENT', itemId: e._id },
      { itemType: 'PLAYABLE', itemId: p._id, durationMs: 5000 },
    ];
    return `/playlists/${(await made(t, '/playlists', { displayName: 'Loop', entries }))._id}`;
  },
  '/api/v1/schedule/blocks/:id': async (t) => {
    const e = await event(t);
    const body = {
      displayName: 'Intro',
      duration: 60000,
      items: [{ type: 'EVENT', typeId: e._id, startTimeOffset: 0 }],
    };
    return `/schedule/blocks/${(await made(t, '/schedule/blocks', body))._id}`;
  },
  '/api/v1/webhook/:id': async (t) => {
    const body = {
      displayName: 'all',
      url: 'http://receiver.invalid/hook',
      events: ['log.*'],
      headers: { 'x-a': '1' },
    };
    return `/webhook/${(await made(t, '/webhook', body))._id}`;
  },
};

/**
 * Built-in entities that must round-trip too: system alert rules, zone 1, calendar 1. (Built-in roles
 * answer every PUT with 409 by §1.3, so they are not here.)
 */
const BUILT_IN = ['/alerts/1', '/alerts/7', '/zones/1', '/schedule/calendars/1'];

const table = makeTestApp().app.routes.map((r) => `${r.method} ${r.path}`);
const putRoutes = table
  .filter((r) => r.startsWith('PUT ') && /\/:[^/]+$/.test(r) && table.includes(r.replace(/^PUT/, 'GET')))
  .map((r) => r.slice(4));

function without(body: Record<string, unknown>, fields: readonly string[]): Record<string, unknown> {
  return Object.fromEntries(Object.entries(body).filter(([k]) => !fields.includes(k)));
}

async function roundTrip(t: TestApp, path: string, mayChange: readonly string[] = []): Promise<void> {
  const before = await t.call('GET', path, { as: 'admin' });
  expect(before.status).toBe(200);
  const put = await t.call('PUT', path, { as: 'admin', body: before.body });
  const expected = without(before.body, mayChange);
  expect({ status: put.status, body: without(put.body, mayChange) }).toEqual({ status: 200, body: expected });
  expect(without((await t.call('GET', path, { as: 'admin' })).body, mayChange)).toEqual(expected);
}

describe('GET then PUT of the same body (C: Requests)', () => {
  it('finds the PUT /:id routes', () => {
    expect(putRoutes.length).toBeGreaterThan(20);
  });

  it.each(putRoutes)('%s has an entry in the round-trip table', (route) => {
    expect(Object.keys(MAKERS)).toContain(route);
  });

  const covered = putRoutes.flatMap((route): [string, Changing][] => {
    const maker = MAKERS[route];
    if (typeof maker === 'function') return [[route, { make: maker, mayChange: [], why: '' }]];
    return maker !== undefined && 'make' in maker ? [[route, maker]] : [];
  });
  it.each(covered)('%s: a typical entity read and sent back is accepted unchanged', async (_, maker) => {
    const t = makeTestApp();
    await roundTrip(t, await maker.make(t), maker.mayChange);
  });

  it.each(BUILT_IN)('built-in %s read and sent back is accepted unchanged', async (path) => {
    await roundTrip(makeTestApp(), path);
  });
});
