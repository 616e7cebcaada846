/**
 * Class guard for C: Responses ("every list sends X-Total-Count; a cut list also sends Link
 * rel=next; limit/offset page a list"): every GET operation whose OpenAPI 200 answer is an array is
 * read as admin on an app holding a few entities, so a new list route that bypasses the list helper
 * (src/http/lists.ts) fails here rather than in a client.
 */
import { beforeAll, describe, expect, it } from 'bun:test';
import { addSubsystem, makeTestApp } from './helpers/app';
import { makeUser } from './helpers/factories';

type Json = Record<string, unknown>;

/**
 * List routes that page another way, each with the rule that makes it right. An entry whose route
 * gains `offset` fails the guard until it is removed.
 */
const UNPAGED: Record<string, string> = {
  '/api/v1/scheduledItems':
    'a schedule read (§11.5): its `limit` cuts the resolved entries and sets countLimitReached; it has no offset',
  '/api/v1/playables/{id}/instances': 'a schedule read (§14, query of §11.5), as /scheduledItems',
  '/api/v1/assets/historicCounts': 'a time series (§16 rule 2): from, to and interval choose its buckets, at most 1000',
  '/api/v1/assets/{id}/historicCounts': 'a time series (§16 rule 2), as /assets/historicCounts',
  '/api/v1/infra/assets/{id}/historicCounts': 'a time series (§16 rule 2), as /assets/historicCounts',
  '/api/v1/infra/assets/{id}/network/historicCounts': 'a time series (§16 rule 3), as /assets/historicCounts',
};

const t = makeTestApp({ start: '2026-01-15T12:00:00.000Z' });
/** `{id}` of each array route with a path parameter; a new one without an entry fails the guard. */
const ids: Record<string, string> = {};
let lists: { path: string; query: string[] }[] = [];

beforeAll(async () => {
  const doc = (await t.call('GET', '/api/v1/openapi.json')).body as { paths: Record<string, Json> };
  lists = Object.entries(doc.paths).flatMap(([path, item]) => {
    const op = item.get as Json | undefined;
    const ok = (op?.responses as Record<string, Json> | undefined)?.['200'];
    const schema = (ok?.content as Record<string, Json> | undefined)?.['application/json']?.schema as Json | undefined;
    if (schema?.type !== 'array') return [];
    const params = (op?.parameters ?? []) as { name: string; in: string }[];
    return [{ path, query: params.filter((p) => p.in === 'query').map((p) => p.name) }];
  });

  // Two of most things, so a list of them can be cut at limit=1.
  const media = await addSubsystem(t, 'media');
  await addSubsystem(t, 'lights');
  for (const externalRef of ['temp', 'level']) {
    await t.call('POST', '/variables', { as: 'admin', body: { subsystemExternalId: 'media', externalRef } });
    await t.call('POST', '/events', { as: 'admin', body: { subsystemExternalId: 'media', externalRef } });
  }
  const variable = (await t.call('GET', '/variables', { as: 'admin', query: { limit: 1 } })).body[0];
  await t.call('PUT', `/variables/${variable._id}/value`, { as: 'admin', body: { value: '1' } });
  await t.call('PUT', `/variables/${variable._id}/value`, { as: 'admin', body: { value: '2' } });
  for (const topic of ['a', 'b']) {
    await t.call('PUT', '/subsystems/media/action', { as: 'admin', body: { type: 'identify', topic } });
  }
  const webhook = await t.call('POST', '/webhook', {
    as: 'admin',
    body: { displayName: 'Ops', url: 'https://hooks.example.com/in' },
  });
  for (const name of ['a.txt', 'b.txt']) {
    await t.call('POST', '/objects/cms-media', { as: 'admin', body: { name, tags: ['x', 'y'] } });
  }
  const playable = await t.call('POST', '/playables', {
    as: 'admin',
    body: { subsystemExternalId: 'media', externalRef: 'show' },
  });
  const template = await t.call('POST', '/playables', {
    as: 'admin',
    body: { subsystemExternalId: 'media', externalRef: 'tpl', type: 'template' },
  });
  for (const externalRef of ['a', 'b']) {
    const body = {
      subsystemExternalId: 'media',
      externalRef,
      displayName: externalRef,
      templatePath: { _id: template.body._id },
    };
    await t.call('POST', '/compositions', { as: 'admin', body });
  }
  const asset = await t.call('POST', '/infra/assets', {
    as: 'admin',
    body: { displayName: 'Rack', profileType: 'rack' },
  });
  const user = await makeUser(t, 'una');
  Object.assign(ids, {
    '/api/v1/subsystems/{id}/actions': String(media._id),
    '/api/v1/users/{id}/availablepanels': String(user.user.id),
    '/api/v1/users/{id}/controlpanels': String(user.user.id),
    '/api/v1/variables/{id}/history': String(variable._id),
    '/api/v1/webhook/{id}/deliveries': String(webhook.body._id),
    // Calendar 1 ("Main") exists from the first start.
    '/api/v1/schedule/calendars/{id}/scheduledItems': '1',
    '/api/v1/objects/{id}/_tags': 'cms-media',
    '/api/v1/subsystem/{id}/compositions': 'media',
    '/api/v1/subsystems/{id}/compositions': String(media._id),
    '/api/v1/playables/{id}/instances': String(playable.body._id),
    '/api/v1/assets/{id}/historicCounts': String(asset.body._id),
    '/api/v1/infra/assets/{id}/historicCounts': String(asset.body._id),
    '/api/v1/infra/assets/{id}/network/historicCounts': String(asset.body._id),
  });
});

/** The route's path with its `{id}` filled, or a failure naming the route that needs an entry in `ids`. */
function pathOf(route: string): string {
  if (!route.includes('{')) return route;
  const id = ids[route];
  if (id === undefined) throw new Error(`lists.test.ts: add an {id} for the new list route ${route}`);
  return route.replace('{id}', id);
}

describe('every list route (C: Responses)', () => {
  it('finds the list routes in the served document', () => {
    expect(lists.length).toBeGreaterThan(30);
  });

  it('answers each with X-Total-Count as admin', async () => {
    const missing: string[] = [];
    for (const { path: route } of lists) {
      const res = await t.call('GET', pathOf(route), { as: 'admin' });
      expect(`${route} ${res.status}`).toBe(`${route} 200`);
      const total = res.headers.get('x-total-count');
      if (total === null || Number(total) < res.body.length) missing.push(`${route} (${res.body.length} items)`);
    }
    expect(missing).toEqual([]);
  });

  it('pages each with limit and offset, and a list cut at limit=1 links the next page', async () => {
    const problems: string[] = [];
    let cut = 0;
    for (const { path: route, query } of lists) {
      const paged = query.includes('limit') && query.includes('offset');
      if (route in UNPAGED) {
        if (paged) problems.push(`${route} pages now: remove it from UNPAGED`);
        continue;
      }
      if (!paged) {
        problems.push(`${route} declares no limit/offset`);
        continue;
      }
      const path = pathOf(route);
      const total = Number((await t.call('GET', path, { as: 'admin' })).headers.get('x-total-count'));
      if (!(total >= 2)) continue;
      cut += 1;
      const res = await t.call('GET', path, { as: 'admin', query: { limit: 1, offset: 0 } });
      const link = res.headers.get('link') ?? '';
      if (res.body.length !== 1 || res.headers.get('x-total-count') !== String(total) || !/rel="next"/.test(link))
        problems.push(
          `${route}?limit=1: ${res.body.length} items of ${res.headers.get('x-total-count')}, link ${link}`,
        );
    }
    expect(problems).toEqual([]);
    // The entities above make enough lists long enough to cut that this part cannot pass on nothing.
    expect(cut).toBeGreaterThan(5);
  });
});
