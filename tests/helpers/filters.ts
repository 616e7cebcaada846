/**
 * Checks of list filters (C: Responses: "Filters are query parameters named after fields (exact
 * match; `metadata[key]=v` matches inside `metadata`); a filter that matches nothing returns `[]`").
 * Each check reads the list unfiltered too, so it cannot pass on a filter that is ignored.
 */
import { expect } from 'bun:test';
import type { TestApp } from './app';
import { errorBody } from './errors';

type Item = Record<string, unknown>;
type Query = Record<string, string>;

/** How a check names an item: `externalRef`, else `name`, `externalId`, `displayName`, `key`, `_id`. */
const keyOf = (item: Item) =>
  String(item.externalRef ?? item.name ?? item.externalId ?? item.displayName ?? item.key ?? item._id);

/**
 * The filter selects exactly `expected` (by `keyOf`, in list order), with `X-Total-Count` of that
 * set, less than the whole list; cut at `limit=1`, the total still counts the filtered set. `key`
 * names an item (`keyOf` unless given).
 */
export async function expectFiltered(
  t: TestApp,
  path: string,
  query: Query,
  expected: string[],
  key: (item: Item) => string = keyOf,
): Promise<void> {
  const all = await t.call('GET', path, { as: 'admin' });
  expect(all.status).toBe(200);
  expect(all.body.length).toBeGreaterThan(expected.length);
  const res = await t.call('GET', path, { as: 'admin', query });
  expect({ status: res.status, keys: (res.body as Item[]).map(key) }).toEqual({ status: 200, keys: expected });
  expect(res.headers.get('x-total-count')).toBe(String(expected.length));
  const cut = await t.call('GET', path, { as: 'admin', query: { ...query, limit: '1' } });
  expect((cut.body as Item[]).map(key)).toEqual(expected.slice(0, 1));
  expect(cut.headers.get('x-total-count')).toBe(String(expected.length));
}

/** A filter value that matches nothing: `[]` with `X-Total-Count: 0`, never 404. */
export async function expectNone(t: TestApp, path: string, query: Query): Promise<void> {
  const res = await t.call('GET', path, { as: 'admin', query });
  expect({ status: res.status, body: res.body, total: res.headers.get('x-total-count') }).toEqual({
    status: 200,
    body: [],
    total: '0',
  });
}

/** A value not of the field's type: 400 `bad_request` naming the parameter (C: Errors). */
export async function expectBadFilter(t: TestApp, path: string, name: string, value: string, rule: string) {
  const res = await t.call('GET', path, { as: 'admin', query: { [name]: value } });
  expect(res.status).toBe(400);
  expect(res.body).toEqual(
    errorBody(res, 400, 'bad_request', `query ${name} ${rule}`, [{ path: `/${name}`, message: rule }]),
  );
}
