/** An unpaired surrogate escape in a body is refused at its pointer, never stored as U+FFFD (lone-surrogates.ts). */
import { describe, expect, it } from 'bun:test';
import { addSubsystem, makeTestApp, type TestApp } from '../../tests/helpers/app';
import { validationBody } from '../../tests/helpers/errors';
import { storedRows as stored } from '../../tests/helpers/stored';
import { LONE_SURROGATE, loneSurrogatePath } from './lone-surrogates';

describe('loneSurrogatePath', () => {
  it('names the pointer of the first string or key that is not well-formed', () => {
    const at = (text: string) => loneSurrogatePath(JSON.parse(text), text);
    expect(at('"\\ud800"')).toBe('/');
    expect(at('{"a":{"b/c":["ok","x\\uDC00y"]}}')).toBe('/a/b~1c/1');
    expect(at('{"m":{"k\\ud83c":1}}')).toBe('/m/k\ud83c');
    expect(at('{"a":"\\ud83d\\ude00","b":"\\u00e9","c":"😀"}')).toBeNull();
    expect(at('{"a":"\\\\ud800"}')).toBeNull(); // an escaped backslash, then the letters
  });
});

const send = (t: TestApp, method: string, path: string, rawBody: string, as: 'admin' | 'integration' = 'admin') =>
  t.call(method, path, { as, rawBody, headers: { 'content-type': 'application/json' } });

describe('unpaired surrogates in bodies', () => {
  it('a name, a tag or a ref holding half an emoji is 400 at its pointer and stores nothing', async () => {
    const t = makeTestApp();
    await addSubsystem(t, 'media');
    t.tokenFor('admin'); // made on first use: before the digest, so it is not counted as the refused requests' doing
    const before = stored(t);
    const cases: Array<[string, string, string, string]> = [
      ['POST', '/subsystems', '{"externalId":"foyer","displayName":"Foyer \\ud83c"}', '/displayName'],
      ['PATCH', '/subsystems/media', '{"metadata":{"room":["A","\\udf89"]}}', '/metadata/room/1'],
      ['POST', '/variables', '{"subsystemExternalId":"media","externalRef":"lvl\\ud800"}', '/externalRef'],
      ['POST', '/objects/cms-media', '{"name":"clip.mp4","tags":["lobby","\\udfff"]}', '/tags/1'],
    ];
    for (const [method, path, raw, pointer] of cases) {
      const res = await send(t, method, path, raw);
      expect(res.body).toEqual(validationBody(res, pointer, LONE_SURROGATE));
    }
    expect(stored(t)).toEqual(before);
  });

  it('value writes by _id and by reference refuse one too; a pair written as escapes is the character', async () => {
    const t = makeTestApp();
    await addSubsystem(t, 'media');
    const made = await send(
      t,
      'POST',
      '/variables',
      '{"subsystemExternalId":"media","externalRef":"title"}',
      'integration',
    );
    expect(made.status).toBe(201);
    const before = stored(t);
    const byId = await send(t, 'POST', `/variables/${made.body._id}/value`, '{"value":"Now: \\ud83c"}', 'integration');
    expect(byId.body).toEqual(validationBody(byId, '/value', LONE_SURROGATE));
    const byRef = await send(
      t,
      'PUT',
      '/subsystems/media/variables/title/lastValue',
      '{"value":"\\udc00"}',
      'integration',
    );
    expect(byRef.body).toEqual(validationBody(byRef, '/value', LONE_SURROGATE));
    expect(stored(t)).toEqual(before);
    const pair = await send(
      t,
      'PUT',
      '/subsystems/media/variables/title/lastValue',
      '{"value":"Now: \\ud83c\\udf89"}',
      'integration',
    );
    expect(pair.status).toBe(200);
    expect(pair.body.lastValue).toBe('Now: 🎉');
    const read = await t.call('GET', `/variables/${made.body._id}`, { as: 'viewer' });
    expect(read.body.lastValue).toBe('Now: 🎉');
  });

  it('a caller without a credential gets 401 before the body is judged', async () => {
    const t = makeTestApp();
    await addSubsystem(t, 'media');
    const res = await t.call('POST', '/subsystems', {
      rawBody: '{"externalId":"foyer","displayName":"\\ud83c"}',
      headers: { 'content-type': 'application/json' },
    });
    expect(res.status).toBe(401);
  });
});
