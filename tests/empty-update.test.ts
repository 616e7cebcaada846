/**
 * An update that changes nothing changes nothing (C: Requests "fields that are absent keep their
 * value"; core/changes.ts): every PUT and PATCH of the served OpenAPI document on one entity (a path
 * with parameters and a GET of its own) is sent `{}` as an administrator, on the realistic venue of
 * the sweep, and the entity must read back with the same `_updatedAt`, with no event published and no
 * audit entry written, whatever the answer (200, or the refusal of a route that needs a body).
 * Collection paths are left out: there `{}` is an upsert that may create.
 */
import { beforeAll, describe, expect, it } from 'bun:test';
import { auditEntries, makeTestApp, recordEvents } from './helpers/app';
import { fill, paramSets } from './helpers/sweep-kit';
import { buildVenue } from './helpers/venue';

const t = makeTestApp();
const doc = (await t.call('GET', '/api/v1/openapi.json')).body as { paths: Record<string, Record<string, unknown>> };
const targets: [string, string][] = [];
for (const [path, item] of Object.entries(doc.paths)) {
  if (!item.get || !path.includes('{')) continue;
  for (const method of ['patch', 'put'] as const) if (item[method]) targets.push([method.toUpperCase(), path]);
}

beforeAll(async () => {
  await buildVenue(t);
}, 120_000);

describe('PUT and PATCH {} on one entity', () => {
  it('covers the entity routes', () => {
    expect(targets.length).toBeGreaterThan(40);
  });

  it.each(targets)('%s %s', async (method, path) => {
    const [set] = await paramSets(t, path, [{ as: 'admin' }]);
    const url = fill(path, set?.params ?? {});
    const before = await t.call('GET', url, { as: 'admin' });
    t.clock.advance(1000);
    const events = recordEvents(t);
    const audits = auditEntries(t).length;
    const res = await t.call(method, url, { as: 'admin', body: {} });
    const after = await t.call('GET', url, { as: 'admin' });
    expect({
      status: res.status < 500,
      updatedAt: after.body?._updatedAt,
      events: events.map((e) => e.type),
      audit: auditEntries(t).length - audits,
    }).toEqual({ status: true, updatedAt: before.body?._updatedAt, events: [], audit: 0 });
  });
});
