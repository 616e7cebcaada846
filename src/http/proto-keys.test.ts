/**
 * `__proto__` in client JSON is an unknown field like any other (proto-keys.ts): it was applied.
 */
import { describe, expect, it } from 'bun:test';
import { makeTestApp } from '../../tests/helpers/app';
import { parseLine } from '../rpc/protocol';
import { dropProtoKeys } from './proto-keys';

describe('__proto__ in a body', () => {
  const t = makeTestApp();
  const systemName = async () => (await t.call('GET', '/settings', { as: 'admin' })).body.systemName;

  it.each([
    ['as written', '{"__proto__":{"systemName":"polluted"}}'],
    ['escaped', '{"\\u005f_proto__":{"systemName":"polluted"}}'],
  ])('%s, does not set what it holds (PATCH /settings renamed the system)', async (how, rawBody) => {
    const before = `Venue ${how}`;
    expect((await t.call('PATCH', '/settings', { as: 'admin', body: { systemName: before } })).status).toBe(200);
    const res = await t.call('PATCH', '/settings', {
      as: 'admin',
      rawBody,
      headers: { 'content-type': 'application/json' },
    });
    expect(res.status).toBe(200);
    expect(res.body.systemName).toBe(before);
    expect(await systemName()).toBe(before);
  });

  it('beside real fields, is ignored and they apply', async () => {
    const res = await t.call('PATCH', '/settings', {
      as: 'admin',
      rawBody: '{"systemName":"Lobby","__proto__":{"systemName":"polluted"}}',
      headers: { 'content-type': 'application/json' },
    });
    expect(res.status).toBe(200);
    expect(await systemName()).toBe('Lobby');
  });

  it('deep in a body, is dropped there too', async () => {
    const res = await t.call('POST', '/subsystems', {
      as: 'admin',
      rawBody: '{"externalId":"proto1","metadata":{"room":{"__proto__":{"x":1},"floor":2}}}',
      headers: { 'content-type': 'application/json' },
    });
    expect(res.status).toBe(201);
    expect(res.body.metadata).toEqual({ room: { floor: 2 } });
    expect(Object.getPrototypeOf(res.body.metadata.room)).toBe(Object.prototype);
  });
});

describe('dropProtoKeys', () => {
  it('drops the key at every depth, in arrays too, and leaves the rest', () => {
    const text = '{"a":[{"__proto__":{"p":1},"b":2}],"__proto__":{"q":1},"c":{"d":{"__proto__":null}}}';
    const value = dropProtoKeys(JSON.parse(text), text);
    expect(value).toEqual({ a: [{ b: 2 }], c: { d: {} } });
    for (const o of [value, value.a[0], value.c.d]) expect(Object.hasOwn(o, '__proto__')).toBe(false);
  });

  it('a JSON-RPC line loses it too', () => {
    const parsed = parseLine('{"method":"heartbeat","params":{"__proto__":{"x":1},"id":"s1"}}');
    if (parsed.kind !== 'call') throw new Error(parsed.reply);
    expect(parsed.params).toEqual({ id: 's1' });
    expect(Object.hasOwn(parsed.params as object, '__proto__')).toBe(false);
  });
});
