/**
 * Bodies and queries are UTF-8: broken bytes are 400 `bad_request` naming where they are, never
 * stored as U+FFFD (utf8.ts, query-once.ts).
 */
import { describe, expect, it } from 'bun:test';
import { addSubsystem, makeTestApp, type TestApp } from '../../tests/helpers/app';
import { errorBody } from '../../tests/helpers/errors';
import { storedRows as stored } from '../../tests/helpers/stored';
import { firstBrokenSequence, NOT_UTF8 } from './utf8';

const enc = new TextEncoder();
const BROKEN_QUERY = 'is not valid percent-encoding of UTF-8';

/** JSON text with raw bytes spliced in where `¤` stands (the bytes a broken client writes). */
function bytesWith(text: string, broken: number[]): Uint8Array {
  const [before, after] = text.split('¤') as [string, string];
  return new Uint8Array([...enc.encode(before), ...broken, ...enc.encode(after)]);
}

const C3_28 = [0xc3, 0x28]; // `é` cut: a lead byte, then `(`

/** Sent with a declared length (the field's usual framing) or chunked (no length: the streaming read). */
const FRAMINGS = ['length', 'chunked'] as const;

function send(
  t: TestApp,
  method: string,
  path: string,
  bytes: Uint8Array,
  framing: (typeof FRAMINGS)[number],
  who: { as?: 'admin' | 'integration' | 'viewer'; token?: string } = { as: 'admin' },
  contentType = 'application/json',
) {
  const headers: Record<string, string> = { 'content-type': contentType };
  if (framing === 'length') headers['content-length'] = String(bytes.byteLength);
  return t.call(method, path, { ...who, rawBody: bytes, headers });
}

const notUtf8Body = (res: { headers: Headers }, path: string) =>
  errorBody(res, 400, 'bad_request', `${path.split('/').filter(Boolean).join('.') || 'body'} ${NOT_UTF8}`, [
    { path, message: NOT_UTF8 },
  ]);

describe('firstBrokenSequence', () => {
  it('finds the first byte that begins no well-formed sequence', () => {
    const at = (...bytes: number[]) => firstBrokenSequence(new Uint8Array(bytes));
    expect(at(...enc.encode('aé€😀'))).toBe(-1);
    expect(at(0x61, 0xc3, 0x28)).toBe(1); // cut two-byte sequence
    expect(at(0x61, 0x80)).toBe(1); // a continuation byte alone
    expect(at(0xc0, 0xaf)).toBe(0); // overlong `/`
    expect(at(0xe0, 0x80, 0xaf)).toBe(0); // overlong three-byte form
    expect(at(0xed, 0xa0, 0x80)).toBe(0); // an encoded surrogate
    expect(at(0xf4, 0x90, 0x80, 0x80)).toBe(0); // past U+10FFFF
    expect(at(0x61, 0xf0, 0x9f, 0x98)).toBe(1); // an emoji cut at the end
    expect(at(0xff)).toBe(0);
  });
});

describe('a body that is not UTF-8', () => {
  it.each(FRAMINGS)(
    'is 400 at the pointer of the string holding it, on every kind of route, nothing stored (%s)',
    async (framing) => {
      const t = makeTestApp();
      const media = await addSubsystem(t, 'media');
      const made = await t.call('POST', '/variables', {
        as: 'integration',
        body: { subsystemExternalId: 'media', externalRef: 'title' },
      });
      expect(made.status).toBe(201);
      t.tokenFor('admin');
      t.tokenFor('integration');
      const before = stored(t);
      const cases: Array<[string, string, Uint8Array, string, 'admin' | 'integration']> = [
        [
          'POST',
          '/subsystems',
          bytesWith('{"externalId":"foyer","displayName":"Foyer ¤ x"}', C3_28),
          '/displayName',
          'admin',
        ],
        ['PUT', `/subsystems/${media._id}`, bytesWith('{"description":"¤"}', [0xff]), '/description', 'admin'],
        [
          'PATCH',
          '/subsystems/media',
          bytesWith('{"metadata":{"room":["A","B¤"]}}', [0xed, 0xa0, 0x80]),
          '/metadata/room/1',
          'admin',
        ],
        [
          'PATCH',
          '/subsystems/media',
          bytesWith('{"metadata":{"k¤":1}}', [0xc0, 0xaf]),
          '/metadata/k\ufffd\ufffd',
          'admin',
        ], // an overlong form: a U+FFFD per byte
        [
          'POST',
          `/variables/${made.body._id}/value`,
          bytesWith('{"value":"Now: ¤"}', [0xf0, 0x9f, 0x98]),
          '/value',
          'integration',
        ],
        [
          'PUT',
          '/subsystems/media/variables/title/lastValue',
          bytesWith('{"value":"¤"}', [0x80]),
          '/value',
          'integration',
        ],
        ['POST', '/auth/login', bytesWith('{"username":"admin","password":"Admin¤"}', [0xe9]), '/password', 'admin'],
      ];
      for (const [method, path, bytes, pointer, as] of cases) {
        const res = await send(t, method, path, bytes, framing, { as });
        expect({ method, path, body: res.body }).toEqual({ method, path, body: notUtf8Body(res, pointer) });
      }
      expect(stored(t)).toEqual(before);
    },
  );

  it('broken bytes outside any string are the body as a whole: 400 at /', async () => {
    const t = makeTestApp();
    for (const framing of FRAMINGS) {
      const res = await send(t, 'POST', '/subsystems', bytesWith('{"externalId":"foyer"¤}', [0xa0]), framing);
      expect(res.body).toEqual(notUtf8Body(res, '/'));
    }
  });

  it('binary bytes labelled as something else are the wrong media type: 415', async () => {
    const t = makeTestApp();
    const png = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0xff, 0x00]);
    const res = await send(t, 'POST', '/subsystems', png, 'length', { as: 'admin' }, 'image/png');
    expect(res.body).toEqual(errorBody(res, 415, 'unsupported_media_type', 'the body must be JSON (application/json)'));
  });

  it('well-formed text is taken as sent, a U+FFFD the client really wrote included (a whole object PUT back)', async () => {
    const t = makeTestApp();
    const text = 'Fête 😀 \ufffd';
    const made = await send(
      t,
      'POST',
      '/subsystems',
      enc.encode(JSON.stringify({ externalId: 'foyer', displayName: text })),
      'length',
    );
    expect(made.status).toBe(201);
    expect(made.body.displayName).toBe(text);
    const back = await send(t, 'PUT', `/subsystems/${made.body._id}`, enc.encode(JSON.stringify(made.body)), 'chunked');
    expect(back.status).toBe(200);
    expect(back.body.displayName).toBe(text);
    // A leading byte-order mark is dropped, as before.
    const bom = new Uint8Array([0xef, 0xbb, 0xbf, ...enc.encode('{"description":"x"}')]);
    expect((await send(t, 'PATCH', '/subsystems/foyer', bom, 'length')).status).toBe(200);
  });

  it('401 without a credential and 403 without the permission come before the body is judged', async () => {
    const t = makeTestApp();
    const bytes = bytesWith('{"externalId":"foyer","displayName":"¤"}', C3_28);
    const anonymous = await send(t, 'POST', '/subsystems', bytes, 'length', {});
    expect(anonymous.status).toBe(401);
    const viewer = await send(t, 'POST', '/subsystems', bytes, 'length', { as: 'viewer' });
    expect(viewer.status).toBe(403);
  });
});

describe('a query that is not percent-encoded UTF-8', () => {
  it('is 400 naming the parameter, whether the route reads it or not; valid escapes still filter', async () => {
    const t = makeTestApp();
    await addSubsystem(t, 'café', { displayName: 'Café' });
    const cases: Array<[string, string]> = [
      ['/subsystems?displayName=%C3%28', '/displayName'],
      ['/subsystems?fuzzy=%FF', '/fuzzy'],
      ['/subsystems?limit=10&metadata%5Broom%5D=%E0%80%AF', '/metadata[room]'],
      ['/subsystems?nobodyReadsThis=%C3', '/nobodyReadsThis'],
      ['/variables?subsystemId=%ZZ', '/subsystemId'],
    ];
    for (const [path, pointer] of cases) {
      const res = await t.call('GET', path, { as: 'admin' });
      expect({ path, body: res.body }).toEqual({
        path,
        body: errorBody(res, 400, 'bad_request', `query ${pointer.slice(1)} ${BROKEN_QUERY}`, [
          { path: pointer, message: BROKEN_QUERY },
        ]),
      });
    }
    const name = await t.call('GET', '/subsystems?%C3%28=x', { as: 'admin' });
    expect(name.body).toEqual(
      errorBody(name, 400, 'bad_request', `the query ${BROKEN_QUERY}`, [{ path: '/', message: BROKEN_QUERY }]),
    );
    const good = await t.call('GET', '/subsystems?externalId=caf%C3%A9', { as: 'admin' });
    expect(good.status).toBe(200);
    expect(good.body.map((s: { displayName: string }) => s.displayName)).toEqual(['Café']);
  });

  it('a caller without a credential gets 401 first', async () => {
    const t = makeTestApp();
    const res = await t.call('GET', '/subsystems?displayName=%C3%28');
    expect(res.status).toBe(401);
  });
});
