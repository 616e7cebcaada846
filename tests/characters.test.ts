/**
 * Lengths count characters (code points), as the contract writes them and as the served OpenAPI
 * document's minLength/maxLength mean them (http/characters.ts): an emoji or a CJK ideograph outside
 * the Basic Multilingual Plane is one character, where it was counted as two UTF-16 units and a name
 * of 200 emoji was refused as "1 to 200 characters". Schema checks (bodies, paths, responses) and the
 * checks services make by hand count the same way; one character past a limit is still refused.
 */
import { describe, expect, it } from 'bun:test';
import { addSubsystem, makeTestApp } from './helpers/app';
import { validationBody } from './helpers/errors';
import { storedRows as stored } from './helpers/stored';

const E = '😀'; // one character, two UTF-16 units
const ACUTE = 'e\u0301'; // two characters (e and a combining accent), one grapheme

describe('lengths in characters', () => {
  it('a displayName of 200 emoji is stored, read and PUT back whole; 201 is 400 and stores nothing', async () => {
    const t = makeTestApp();
    const made = await t.call('POST', '/subsystems', {
      as: 'admin',
      body: { externalId: 'foyer', displayName: E.repeat(200) },
    });
    expect(made.status).toBe(201);
    expect(made.body.displayName).toBe(E.repeat(200));
    const read = await t.call('GET', '/subsystems/foyer', { as: 'viewer' });
    const put = await t.call('PUT', '/subsystems/foyer', { as: 'operator', body: read.body });
    expect(put.status).toBe(200);
    const before = stored(t);
    const over = await t.call('PATCH', '/subsystems/foyer', { as: 'operator', body: { displayName: E.repeat(201) } });
    expect(over.body).toEqual(validationBody(over, '/displayName', 'must be a string of 1 to 200 characters'));
    const empty = await t.call('PATCH', '/subsystems/foyer', { as: 'operator', body: { displayName: '' } });
    expect(empty.body).toEqual(validationBody(empty, '/displayName', 'must be a string of 1 to 200 characters'));
    const control = await t.call('PATCH', '/subsystems/foyer', { as: 'operator', body: { displayName: `${E}\u0007` } });
    expect(control.body).toEqual(validationBody(control, '/displayName', 'contains characters that are not allowed'));
    expect(stored(t)).toEqual(before);
  });

  it('a character is a code point: an accented letter written with a combining mark is two', async () => {
    const t = makeTestApp();
    const at = await t.call('POST', '/subsystems', {
      as: 'admin',
      body: { externalId: 'a', displayName: ACUTE.repeat(100) },
    });
    expect(at.status).toBe(201);
    const over = await t.call('POST', '/subsystems', {
      as: 'admin',
      body: { externalId: 'b', displayName: `${ACUTE.repeat(100)}e` },
    });
    expect(over.body).toEqual(validationBody(over, '/displayName', 'must be a string of 1 to 200 characters'));
  });

  it('refs, values, tags and metadata keys checked by hand count the same way', async () => {
    const t = makeTestApp();
    await addSubsystem(t, 'media');
    const ref = E.repeat(256);
    const made = await t.call('POST', '/variables', {
      as: 'integration',
      body: { subsystemExternalId: 'media', externalRef: ref, tags: [E.repeat(64)] },
    });
    expect(made.status).toBe(201);
    expect(made.body).toMatchObject({ externalRef: ref, tags: [E.repeat(64)] });
    const meta = await t.call('PATCH', '/subsystems/media', {
      as: 'operator',
      body: { metadata: { [E.repeat(64)]: 1 } },
    });
    expect(meta.body.metadata).toEqual({ [E.repeat(64)]: 1 });
    // The write by reference (answered by its door) takes the ref from the path and the value from the body.
    const path = `/subsystems/media/variables/${encodeURIComponent(ref)}/lastValue`;
    const value = await t.call('PUT', path, { as: 'integration', body: { value: E.repeat(16384) } });
    expect(value.status).toBe(200);
    expect(value.body.lastValue).toBe(E.repeat(16384));
    const before = stored(t);
    const long = await t.call('PUT', path, { as: 'integration', body: { value: E.repeat(16385) } });
    expect(long.body).toEqual(validationBody(long, '/value', 'must be at most 16384 characters'));
    const tags = await t.call('PATCH', `/variables/${made.body._id}`, {
      as: 'operator',
      body: { tags: `a,${E.repeat(65)}` },
    });
    expect(tags.body).toEqual(validationBody(tags, '/tags', 'must hold strings of 1 to 64 characters'));
    const key = await t.call('PATCH', '/subsystems/media', {
      as: 'operator',
      body: { metadata: { [E.repeat(65)]: 1 } },
    });
    expect(key.body).toEqual(validationBody(key, '/metadata', 'has a key that is not 1 to 64 characters long'));
    // A ref one character too long is refused as a 257-letter one is.
    const refOf = (text: string) => `/subsystems/media/variables/${encodeURIComponent(text)}/lastValue`;
    const refused = await t.call('PUT', refOf(E.repeat(257)), { as: 'integration', body: { value: '1' } });
    const letters = await t.call('PUT', refOf('a'.repeat(257)), { as: 'integration', body: { value: '1' } });
    expect(refused.status).toBe(400);
    expect({ ...refused.body, requestId: null }).toEqual({ ...letters.body, requestId: null });
    expect(stored(t)).toEqual(before);
  });

  it('a media object name is 1 to 255 characters', async () => {
    const t = makeTestApp();
    const ok = await t.call('POST', '/objects/cms-media', { as: 'admin', body: { name: `${E.repeat(251)}.mp4` } });
    expect(ok.status).toBe(201);
    const over = await t.call('POST', '/objects/cms-media', { as: 'admin', body: { name: `${E.repeat(252)}.mp4` } });
    expect(over.status).toBe(400);
    expect(over.body.detail).toEqual([
      { path: '/name', message: expect.stringContaining('must be 1 to 255 characters') },
    ]);
  });

  it('a password is 8 to 256 characters', async () => {
    const t = makeTestApp();
    const ok = await t.call('POST', '/users', { as: 'admin', body: { username: 'eve', password: E.repeat(8) } });
    expect(ok.status).toBe(201);
    const login = await t.call('POST', '/auth/login', { body: { username: 'eve', password: E.repeat(8) } });
    expect(login.status).toBe(200);
    const short = await t.call('POST', '/users', {
      as: 'admin',
      body: { username: 'bob', password: `${E.repeat(7)}` },
    });
    expect(short.body).toEqual(validationBody(short, '/password', 'must be at least 8 characters'));
  });

  it('the limits of a read-only caller are unchanged: 401 without a credential, 403 without the permission', async () => {
    const t = makeTestApp();
    const body = { externalId: 'foyer', displayName: E.repeat(200) };
    expect((await t.call('POST', '/subsystems', { body })).status).toBe(401);
    expect((await t.call('POST', '/subsystems', { as: 'viewer', body })).status).toBe(403);
  });
});
