import { beforeAll, describe, expect, it } from 'bun:test';
import { makeTestApp, type TestApp } from '../../../tests/helpers/app';
import { expectError } from '../../../tests/helpers/errors';
import { mp4, wav } from './probe/test-support';
import { CSV_COLUMNS, CSV_PAGE } from './search';
import { newObject, pngBytes, putBytes, textBytes } from './test-support';

const SEARCH = '/objects/cms-media/_advancedSearch';
const MINUTE = 60_000;

interface Obj {
  _id: number;
  name: string;
  displayName: string;
  objectSize: number | null;
  metadata: Record<string, unknown>;
  _createdAt: string;
  tags: string[];
  status: string;
}

type Body = Record<string, unknown>;

/** A record made through the API (as admin), with its content when `bytes` is given; the clock then moves a minute. */
async function add(t: TestApp, name: string, fields: Body, bytes?: Uint8Array): Promise<Obj> {
  const created = await newObject(t, name, fields);
  let obj = created as unknown as Obj;
  if (bytes) {
    const res = await putBytes(t, `/objects/${created._id}/content`, bytes);
    if (res.status !== 200) throw new Error(`upload ${name}: ${res.status} ${res.text}`);
    obj = res.body as Obj;
  }
  t.clock.advance(MINUTE);
  return obj;
}

function search(
  t: TestApp,
  body: unknown,
  query: Record<string, string> = {},
  as: 'viewer' | 'integration' = 'viewer',
) {
  return t.call('POST', SEARCH, { as, body, query });
}

const names = (res: { body: Array<{ name: string }> }): string[] => res.body.map((o) => o.name);

/** The bytes of a CSV answer as sent (Response.text() would drop the BOM), with its headers. */
async function csvOf(t: TestApp, body: unknown, query = 'csv') {
  const res = await t.app.handle(
    new Request(`http://localhost/api/v1${SEARCH}?${query}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${t.tokenFor('viewer')}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    }),
  );
  const bytes = new Uint8Array(await res.arrayBuffer());
  return { res, bytes, text: new TextDecoder('utf-8', { ignoreBOM: true }).decode(bytes) };
}

/** RFC 4180 parsing, strict: every line ends with CRLF, no bare CR or LF outside quotes. */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  let wasQuoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        field += '"';
        i++;
      } else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"' && field === '' && !wasQuoted) {
      quoted = true;
      wasQuoted = true;
    } else if (c === ',') {
      row.push(field);
      field = '';
      wasQuoted = false;
    } else if (c === '\r' && text[i + 1] === '\n') {
      row.push(field);
      rows.push(row);
      row = [];
      field = '';
      wasQuoted = false;
      i++;
    } else if (c === '\r' || c === '\n' || c === '"') throw new Error(`bare ${JSON.stringify(c)} at ${i}`);
    else field += c;
  }
  if (field !== '' || row.length > 0 || quoted) throw new Error('the last line does not end with CRLF');
  return rows;
}

/** A CSV's rows as objects keyed by the header. */
function csvRecords(text: string): Record<string, string>[] {
  const [header, ...rows] = parseCsv(text.replace(/^\uFEFF/, ''));
  return rows.map((r) => Object.fromEntries((header ?? []).map((h, i) => [h, r[i] ?? ''])));
}

interface Library {
  t: TestApp;
  sunset: Obj;
  trailer: Obj;
  ambient: Obj;
  jingle: Obj;
  menu: Obj;
  draft: Obj;
  old: Obj;
  /** The five uploaded ones, in creation order. */
  uploaded: Obj[];
}

/**
 * Seven objects made through the API, a minute apart: an image, a video, two audio clips and a text
 * (uploaded), a record without content, and one in the trash.
 */
async function buildLibrary(): Promise<Library> {
  const t = makeTestApp();
  const sunset = await add(
    t,
    'sunset.png',
    {
      displayName: 'Sunset over the bay',
      description: 'Evening loop for the lobby',
      tags: ['lobby', 'brand'],
      metadata: { room: 'A', priority: 2, spec: { w: 1 }, 'odd."key': 'yes' },
    },
    pngBytes(1920, 1080),
  );
  const trailer = await add(
    t,
    'trailer.mp4',
    { displayName: 'Festival trailer', tags: ['stage', 'promo'], metadata: { room: 'B' } },
    mp4(),
  );
  const ambient = await add(
    t,
    'ambient.wav',
    { displayName: 'ambient night', tags: ['lobby', 'loop'] },
    wav(8000, 1, 8, 16000),
  );
  const jingle = await add(t, 'jingle.wav', { displayName: 'Jingle', tags: ['bar'] }, wav(8000, 1, 8, 8000));
  const menu = await add(
    t,
    'menu.txt',
    { displayName: 'Bar menu', description: 'Drinks and snacks, Café Crème', tags: ['bar', 'menu'] },
    textBytes('Drinks, snacks and more: see the board by the bar.'),
  );
  const draft = await add(t, 'draft.png', {
    displayName: 'Draft poster',
    tags: ['lobby'],
    metadata: { type: 'poster' },
  });
  const old = await add(t, 'old.png', { displayName: 'Old banner', tags: ['brand'] }, pngBytes(10, 10, 8));
  expect((await t.call('DELETE', `/objects/${old._id}`, { as: 'admin' })).status).toBe(204);
  return { t, sunset, trailer, ambient, jingle, menu, draft, old, uploaded: [sunset, trailer, ambient, jingle, menu] };
}

describe('_advancedSearch (§12)', () => {
  let lib: Library;
  let t: TestApp;
  beforeAll(async () => {
    lib = await buildLibrary();
    t = lib.t;
  });

  it('has the library it needs (types, durations, sizes as the probe gave them)', () => {
    expect(lib.sunset.metadata).toMatchObject({ type: 'image', mediaInfo: { width: 1920, height: 1080 } });
    expect(lib.trailer.metadata.type).toBe('video');
    expect(lib.ambient.metadata).toMatchObject({ type: 'audio', duration: 2000 });
    expect(lib.jingle.metadata).toMatchObject({ type: 'audio', duration: 1000 });
    expect(lib.menu.metadata.type).toBe('document');
    expect(typeof lib.trailer.metadata.duration).toBe('number');
    const sizes = lib.uploaded.map((o) => o.objectSize);
    expect(new Set(sizes).size).toBe(5);
  });

  it('answers every uploaded object of the bucket, newest first, with X-Total-Count and the object DTO', async () => {
    const res = await search(t, {});
    expect(res.status).toBe(200);
    expect(names(res)).toEqual(['menu.txt', 'jingle.wav', 'ambient.wav', 'trailer.mp4', 'sunset.png']);
    expect(res.headers.get('x-total-count')).toBe('5');
    expect(res.headers.get('link')).toBeNull();
    const read = await t.call('GET', `/objects/${lib.sunset._id}`, { as: 'viewer' });
    const found = res.body.find((o: Obj) => o._id === lib.sunset._id);
    expect({ ...found, _links: null }).toEqual({ ...read.body, _links: null });
    expect(found._links.self).toBe(`/api/v1/objects/${lib.sunset._id}`);
    // An empty body is the same search.
    const empty = await t.call('POST', SEARCH, { as: 'viewer' });
    expect(names(empty)).toEqual(names(res));
  });

  it('searches any existing bucket; an unknown one is 404', async () => {
    const res = await t.call('POST', '/objects/backups/_advancedSearch', { as: 'viewer', body: {} });
    expect(res.status).toBe(200);
    expect(res.body).toEqual([]);
    expect(res.headers.get('x-total-count')).toBe('0');
    expectError(await t.call('POST', '/objects/nope/_advancedSearch', { as: 'viewer', body: {} }), 404, 'not_found');
  });

  it('needs media:read: 401 without a credential, 403 without the permission; the integration role reads', async () => {
    expectError(await t.call('POST', SEARCH, { body: {} }), 401, 'unauthorized');
    const res = await t.call('POST', SEARCH, { token: t.tokenWith(['logs:read']), body: {} });
    expectError(res, 403, 'forbidden');
    expect((await search(t, {}, {}, 'integration')).status).toBe(200);
    expect((await t.call('POST', SEARCH, { token: t.tokenWith(['media:read']), body: {} })).status).toBe(200);
  });

  describe('criteria', () => {
    it('status: uploaded by default; created, deleted or several on request', async () => {
      expect(names(await search(t, { status: ['created'] }))).toEqual(['draft.png']);
      expect(names(await search(t, { status: ['deleted'] }))).toEqual(['old.png']);
      const all = await search(t, { status: ['created', 'uploaded', 'deleted'] });
      expect(all.headers.get('x-total-count')).toBe('7');
      // An empty list is the default.
      expect((await search(t, { status: [] })).headers.get('x-total-count')).toBe('5');
    });

    it('query: case-insensitive, inside name, displayName, description and tags; every word must appear', async () => {
      expect(names(await search(t, { query: 'SUNSET' }))).toEqual(['sunset.png']);
      expect(names(await search(t, { query: 'evening' }))).toEqual(['sunset.png']);
      expect(names(await search(t, { query: 'promo' }))).toEqual(['trailer.mp4']);
      expect(names(await search(t, { query: '.wav' }))).toEqual(['jingle.wav', 'ambient.wav']);
      expect(names(await search(t, { query: 'Festival Trail' }))).toEqual(['trailer.mp4']);
      expect(names(await search(t, { query: ' lobby  sunset ' }))).toEqual(['sunset.png']);
      expect(names(await search(t, { query: 'lobby' }))).toEqual(['ambient.wav', 'sunset.png']);
      expect(names(await search(t, { query: 'CRÈME' }))).toEqual(['menu.txt']);
      expect(names(await search(t, { query: '100%_' }))).toEqual([]);
      expect((await search(t, { query: '   ' })).headers.get('x-total-count')).toBe('5');
    });

    it('tags: all, any and none', async () => {
      expect(names(await search(t, { tags: { all: ['lobby'] } }))).toEqual(['ambient.wav', 'sunset.png']);
      expect(names(await search(t, { tags: { all: ['lobby', 'loop'] } }))).toEqual(['ambient.wav']);
      expect(names(await search(t, { tags: { all: ['lobby', 'bar'] } }))).toEqual([]);
      expect(names(await search(t, { tags: { any: ['stage', 'bar'] } }))).toEqual([
        'menu.txt',
        'jingle.wav',
        'trailer.mp4',
      ]);
      expect(names(await search(t, { tags: { none: ['lobby', 'bar'] } }))).toEqual(['trailer.mp4']);
      expect(names(await search(t, { tags: { all: ['bar'], any: ['menu', 'loop'] } }))).toEqual(['menu.txt']);
      expect(names(await search(t, { tags: { any: ['bar'], none: ['menu'] } }))).toEqual(['jingle.wav']);
      expect(names(await search(t, { tags: { all: ['lobby'] }, status: ['created'] }))).toEqual(['draft.png']);
      // Exact tags: no partial or case-folded match.
      expect(names(await search(t, { tags: { any: ['Lobby', 'lob'] } }))).toEqual([]);
      expect((await search(t, { tags: { all: [], any: [], none: [] } })).headers.get('x-total-count')).toBe('5');
    });

    it('types: the server-side metadata.type', async () => {
      expect(names(await search(t, { types: ['video'] }))).toEqual(['trailer.mp4']);
      expect(names(await search(t, { types: ['image', 'audio'] }))).toEqual([
        'jingle.wav',
        'ambient.wav',
        'sunset.png',
      ]);
      expect(names(await search(t, { types: ['document'] }))).toEqual(['menu.txt']);
      expect(names(await search(t, { types: ['other'] }))).toEqual([]);
      // A record without content has no type yet.
      expect(names(await search(t, { types: ['image'], status: ['created', 'deleted'] }))).toEqual(['old.png']);
    });

    it('createdFrom (inclusive) and createdTo (exclusive), with any offset', async () => {
      const at = (o: Obj) => o._createdAt;
      expect(names(await search(t, { createdFrom: at(lib.ambient) }))).toEqual([
        'menu.txt',
        'jingle.wav',
        'ambient.wav',
      ]);
      expect(names(await search(t, { createdTo: at(lib.ambient) }))).toEqual(['trailer.mp4', 'sunset.png']);
      expect(names(await search(t, { createdFrom: at(lib.trailer), createdTo: at(lib.jingle) }))).toEqual([
        'ambient.wav',
        'trailer.mp4',
      ]);
      // The same instant written with an offset.
      const shifted = new Date(Date.parse(at(lib.ambient)) + 2 * 3600_000).toISOString().replace('Z', '+02:00');
      expect(names(await search(t, { createdFrom: shifted }))).toEqual(['menu.txt', 'jingle.wav', 'ambient.wav']);
    });

    it('sizeMin and sizeMax (inclusive); objects without content never match a bound', async () => {
      const sizes = lib.uploaded.map((o) => o.objectSize ?? 0).sort((a, b) => a - b);
      const [, second = 0, third = 0, fourth = 0] = sizes;
      const within = (lo: number, hi: number) =>
        lib.uploaded
          .filter((o) => (o.objectSize ?? -1) >= lo && (o.objectSize ?? -1) <= hi)
          .reverse()
          .map((o) => o.name);
      expect(names(await search(t, { sizeMin: second, sizeMax: fourth }))).toEqual(within(second, fourth));
      expect(names(await search(t, { sizeMin: third, sizeMax: third }))).toHaveLength(1);
      expect((await search(t, { sizeMin: 0, status: ['created'] })).body).toEqual([]);
      expect((await search(t, { sizeMax: Number.MAX_SAFE_INTEGER })).headers.get('x-total-count')).toBe('5');
    });

    it('durationMin and durationMax in ms; images and documents have none', async () => {
      expect(names(await search(t, { durationMin: 1000, durationMax: 2000 }))).toEqual(['jingle.wav', 'ambient.wav']);
      expect(names(await search(t, { durationMin: 1500 }))).toEqual(['ambient.wav', 'trailer.mp4']);
      expect(names(await search(t, { durationMax: 1000 }))).toEqual(['jingle.wav']);
      expect(names(await search(t, { durationMin: 0 }))).toEqual(['jingle.wav', 'ambient.wav', 'trailer.mp4']);
    });

    it('metadata: user keys and server keys, strings compared as strings, the server winning', async () => {
      expect(names(await search(t, { metadata: { room: 'A' } }))).toEqual(['sunset.png']);
      expect(names(await search(t, { metadata: { priority: 2 } }))).toEqual(['sunset.png']);
      expect(names(await search(t, { metadata: { priority: '2' } }))).toEqual(['sunset.png']);
      expect(names(await search(t, { metadata: { spec: { w: 1 } } }))).toEqual(['sunset.png']);
      expect(names(await search(t, { metadata: { 'odd."key': 'yes' } }))).toEqual(['sunset.png']);
      expect(names(await search(t, { metadata: { type: 'audio' } }))).toEqual(['jingle.wav', 'ambient.wav']);
      expect(names(await search(t, { metadata: { type: 'audio', duration: 2000 } }))).toEqual(['ambient.wav']);
      expect(names(await search(t, { metadata: { subtype: 'png', extension: 'png' } }))).toEqual(['sunset.png']);
      expect(names(await search(t, { metadata: { room: 'A', type: 'video' } }))).toEqual([]);
      expect(names(await search(t, { metadata: { missing: 'x' } }))).toEqual([]);
      // `type` is the server's key (§12): a client's `type` was ignored, even before the content came.
      expect(names(await search(t, { metadata: { type: 'poster' }, status: ['created', 'uploaded'] }))).toEqual([]);
      const mediaInfo = lib.sunset.metadata.mediaInfo;
      expect(names(await search(t, { metadata: { mediaInfo } }))).toEqual(['sunset.png']);
    });

    it('combines every criterion', async () => {
      const body = {
        query: 'a',
        tags: { any: ['lobby', 'bar', 'stage'], none: ['menu'] },
        types: ['audio', 'video', 'image'],
        createdFrom: lib.trailer._createdAt,
        sizeMin: 1,
        durationMin: 1000,
        durationMax: 20_000,
        metadata: { type: 'audio' },
        sort: { field: 'displayName', order: 'asc' },
      };
      const res = await search(t, body);
      expect(names(res)).toEqual(['ambient.wav', 'jingle.wav']);
      expect(res.headers.get('x-total-count')).toBe('2');
    });
  });

  describe('sorting', () => {
    it.each([
      [undefined, ['menu.txt', 'jingle.wav', 'ambient.wav', 'trailer.mp4', 'sunset.png']],
      [{ field: '_createdAt' }, ['menu.txt', 'jingle.wav', 'ambient.wav', 'trailer.mp4', 'sunset.png']],
      [{ field: '_createdAt', order: 'asc' }, ['sunset.png', 'trailer.mp4', 'ambient.wav', 'jingle.wav', 'menu.txt']],
      [{ order: 'asc' }, ['sunset.png', 'trailer.mp4', 'ambient.wav', 'jingle.wav', 'menu.txt']],
      // Case-insensitive: "ambient night" before "Bar menu".
      [{ field: 'displayName' }, ['ambient.wav', 'menu.txt', 'trailer.mp4', 'jingle.wav', 'sunset.png']],
      [{ field: 'displayName', order: 'asc' }, ['ambient.wav', 'menu.txt', 'trailer.mp4', 'jingle.wav', 'sunset.png']],
      [{ field: 'displayName', order: 'desc' }, ['sunset.png', 'jingle.wav', 'trailer.mp4', 'menu.txt', 'ambient.wav']],
      // Without a duration (the image, the text): last in both orders.
      [{ field: 'duration', order: 'asc' }, ['jingle.wav', 'ambient.wav', 'trailer.mp4', 'sunset.png', 'menu.txt']],
      [{ field: 'duration', order: 'desc' }, ['trailer.mp4', 'ambient.wav', 'jingle.wav', 'menu.txt', 'sunset.png']],
    ])('sort %j', async (sort, expected) => {
      const res = await search(t, sort === undefined ? {} : { sort });
      expect(names(res)).toEqual(expected);
    });

    it('objectSize both orders; objects without content last in both', async () => {
      const bySize = [...lib.uploaded].sort((a, b) => (a.objectSize ?? 0) - (b.objectSize ?? 0)).map((o) => o.name);
      const all = ['created', 'uploaded', 'deleted'];
      const asc = await search(t, { sort: { field: 'objectSize', order: 'asc' }, status: ['created', 'uploaded'] });
      expect(names(asc)).toEqual([...bySize, 'draft.png']);
      const desc = await search(t, { sort: { field: 'objectSize', order: 'desc' }, status: all });
      expect(names(desc).at(-1)).toBe('draft.png');
      expect(names(desc).filter((n) => n !== 'old.png' && n !== 'draft.png')).toEqual([...bySize].reverse());
    });

    it('breaks ties by _id in the order asked (the default: newest _id first)', async () => {
      const app = makeTestApp();
      const ids: number[] = [];
      for (const name of ['a', 'b', 'c']) ids.push((await newObject(app, name, { displayName: 'Same' }))._id);
      const ask = (sort?: Body) =>
        app.call('POST', SEARCH, { as: 'viewer', body: { status: ['created'], ...(sort ? { sort } : {}) } });
      const idsOf = (res: { body: Obj[] }) => res.body.map((o) => o._id);
      expect(idsOf(await ask())).toEqual([...ids].reverse());
      expect(idsOf(await ask({ field: '_createdAt', order: 'asc' }))).toEqual(ids);
      expect(idsOf(await ask({ field: 'displayName', order: 'asc' }))).toEqual(ids);
      expect(idsOf(await ask({ field: 'displayName', order: 'desc' }))).toEqual([...ids].reverse());
      expect(idsOf(await ask({ field: 'objectSize', order: 'desc' }))).toEqual([...ids].reverse());
    });
  });

  describe('paging', () => {
    it.each([[undefined], [{ field: 'displayName' }]])(
      'limit and offset with X-Total-Count and a Link to the next page (sort %j)',
      async (sort) => {
        const body = sort ? { sort } : {};
        const all = names(await search(t, body));
        const first = await search(t, body, { limit: '2' });
        expect(names(first)).toEqual(all.slice(0, 2));
        expect(first.headers.get('x-total-count')).toBe('5');
        const link = first.headers.get('link') ?? '';
        expect(link).toBe(`<${`/api/v1${SEARCH}?limit=2&offset=2`}>; rel="next"`);
        // Following the link with the same body gives the next page.
        const next = await t.call('POST', (/<([^>]+)>/.exec(link)?.[1] ?? '').replace('/api/v1', ''), {
          as: 'viewer',
          body,
        });
        expect(names(next)).toEqual(all.slice(2, 4));
        const last = await search(t, body, { limit: '2', offset: '4' });
        expect(names(last)).toEqual(all.slice(4));
        expect(last.headers.get('link')).toBeNull();
        expect(last.headers.get('x-total-count')).toBe('5');
        const past = await search(t, body, { offset: '9' });
        expect(past.body).toEqual([]);
        expect(past.headers.get('x-total-count')).toBe('5');
      },
    );

    it('takes offset from the body; the query wins when both are given', async () => {
      const all = names(await search(t, {}));
      expect(names(await search(t, { offset: 3 }))).toEqual(all.slice(3));
      expect(names(await search(t, { offset: 3 }, { offset: '1', limit: '1' }))).toEqual(all.slice(1, 2));
      const cut = await search(t, { offset: 1 }, { limit: '2' });
      expect(names(cut)).toEqual(all.slice(1, 3));
      expect(cut.headers.get('link')).toBe(`<${`/api/v1${SEARCH}?limit=2&offset=3`}>; rel="next"`);
    });
  });

  describe('bad criteria', () => {
    it.each([
      [{ sort: { field: 'name' } }, '/sort/field'],
      [{ sort: { field: 'displayName', order: 'up' } }, '/sort/order'],
      [{ sizeMin: 10, sizeMax: 5 }, '/sizeMax'],
      [{ sizeMin: -1 }, '/sizeMin'],
      [{ sizeMax: 1.5 }, '/sizeMax'],
      [{ durationMin: 2000, durationMax: 1000 }, '/durationMax'],
      [{ durationMax: -5 }, '/durationMax'],
      [{ createdFrom: 'yesterday' }, '/createdFrom'],
      [{ createdFrom: '2026-01-15T12:00:00' }, '/createdFrom'],
      [{ createdTo: '2026-02-30T00:00:00Z' }, '/createdTo'],
      [{ createdTo: '2026-01-15T25:00:00Z' }, '/createdTo'],
      [{ createdFrom: '2026-01-15T12:00:00Z', createdTo: '2026-01-15T11:00:00Z' }, '/createdTo'],
      [{ createdFrom: '2026-01-15T12:00:00Z', createdTo: '2026-01-15T12:00:00Z' }, '/createdTo'],
      [{ status: ['gone'] }, '/status/0'],
      [{ status: 'uploaded' }, '/status'],
      [{ types: ['movie'] }, '/types/0'],
      [{ tags: { all: 'lobby' } }, '/tags/all'],
      [{ tags: { any: [7] } }, '/tags/any'],
      [{ tags: { none: [''] } }, '/tags/none'],
      [{ tags: ['lobby'] }, '/tags'],
      [{ query: 5 }, '/query'],
      [{ query: 'x'.repeat(201) }, '/query'],
      [{ metadata: 'room' }, '/metadata'],
      [{ offset: -1 }, '/offset'],
    ])('%j → 400 at %s', async (body, path) => {
      const res = await search(t, body);
      expectError(res, 400, 'validation');
      expect(res.body.detail[0].path.startsWith(path)).toBe(true);
    });

    it.each([
      [{ limit: '0' }, '/limit'],
      [{ limit: '10001' }, '/limit'],
      [{ limit: 'ten' }, '/limit'],
      [{ offset: '-1' }, '/offset'],
      [{ csv: 'maybe' }, '/csv'],
    ])('query %j → 400 at %s', async (query, path) => {
      const res = await search(t, {}, query);
      expect(res.status).toBe(400);
      expect(['validation', 'bad_request']).toContain(res.body.code);
      expect(res.body.detail[0].path).toBe(path);
    });

    it('refuses a body that is not an object', async () => {
      expectError(await t.call('POST', SEARCH, { as: 'viewer', rawBody: '[1]' }), 400, 'validation');
      expectError(await t.call('POST', SEARCH, { as: 'viewer', rawBody: '{"query":' }), 400, 'bad_request');
    });
  });

  describe('CSV', () => {
    it.each([['csv'], ['csv='], ['csv=true'], ['csv=1'], ['csv=TRUE']])('?%s answers CSV', async (query) => {
      const { res } = await csvOf(t, {}, query);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    });

    it('?csv=false and ?csv=0 answer JSON', async () => {
      for (const csv of ['false', '0']) {
        const res = await search(t, {}, { csv });
        expect(res.headers.get('content-type')).toContain('application/json');
        expect(res.body).toHaveLength(5);
      }
    });

    it('starts with a BOM and the header row, ends lines with CRLF, names the file and the total', async () => {
      const { res, bytes, text } = await csvOf(t, {});
      expect([...bytes.slice(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
      expect(res.headers.get('content-disposition')).toBe('attachment; filename="cms-media-objects.csv"');
      expect(res.headers.get('x-total-count')).toBe('5');
      expect(res.headers.get('x-request-id')).toBeTruthy();
      const lines = text.slice(1).split('\r\n');
      expect(lines[0]).toBe(
        '_id,bucket,name,displayName,type,subtype,objectSize,duration,width,height,tags,status,_createdAt,_updatedAt,sha256',
      );
      expect(lines[0]?.split(',')).toEqual([...CSV_COLUMNS]);
      expect(lines).toHaveLength(1 + 5 + 1);
      expect(lines.at(-1)).toBe('');
      expect(text.replaceAll('\r\n', '')).not.toMatch(/[\r\n]/);
    });

    it('holds the columns of each object: type, size, duration, width/height from mediaInfo, tags joined with ;', async () => {
      const { text } = await csvOf(t, {});
      const records = csvRecords(text);
      expect(records.map((r) => r.name)).toEqual([
        'menu.txt',
        'jingle.wav',
        'ambient.wav',
        'trailer.mp4',
        'sunset.png',
      ]);
      const sunset = records.find((r) => r.name === 'sunset.png');
      const read = (await t.call('GET', `/objects/${lib.sunset._id}`, { as: 'viewer' })).body;
      expect(sunset).toEqual({
        _id: String(lib.sunset._id),
        bucket: 'cms-media',
        name: 'sunset.png',
        displayName: 'Sunset over the bay',
        type: 'image',
        subtype: 'png',
        objectSize: String(read.objectSize),
        duration: '',
        width: '1920',
        height: '1080',
        tags: 'lobby;brand',
        status: 'uploaded',
        _createdAt: read._createdAt,
        _updatedAt: read._updatedAt,
        sha256: read.sha256,
      });
      const ambient = records.find((r) => r.name === 'ambient.wav');
      expect(ambient).toMatchObject({ type: 'audio', duration: '2000', width: '', height: '', tags: 'lobby;loop' });
      const trailer = records.find((r) => r.name === 'trailer.mp4');
      const info = lib.trailer.metadata.mediaInfo as { width: number; height: number };
      expect(trailer).toMatchObject({
        type: 'video',
        subtype: 'mp4',
        width: String(info.width),
        height: String(info.height),
      });
    });

    it('follows the criteria and the sort; a record without content has empty cells', async () => {
      const { text, res } = await csvOf(t, {
        tags: { any: ['lobby'] },
        status: ['created', 'uploaded'],
        sort: { field: 'displayName', order: 'asc' },
      });
      expect(res.headers.get('x-total-count')).toBe('3');
      const records = csvRecords(text);
      expect(records.map((r) => r.name)).toEqual(['ambient.wav', 'draft.png', 'sunset.png']);
      expect(records[1]).toMatchObject({
        type: '',
        subtype: '',
        objectSize: '',
        duration: '',
        sha256: '',
        status: 'created',
      });
      const none = await csvOf(t, { query: 'no such thing' });
      expect(none.text).toBe(`\uFEFF${CSV_COLUMNS.join(',')}\r\n`);
      expect(none.res.headers.get('x-total-count')).toBe('0');
    });

    it('quotes commas, quotes and line breaks (RFC 4180) and neutralises formulas', async () => {
      const app = makeTestApp();
      await newObject(app, '=SUM(A1)', { displayName: 'Say "hi", friends', tags: ['a,b', 'line\nbreak', '-x'] });
      await newObject(app, '+1', { displayName: '@x' });
      await newObject(app, '-1', { displayName: 'plain', tags: ['=cmd|calc', 'cr\rhere'] });
      await newObject(app, '@x', { displayName: 'Café crème' });
      const res = await app.app.handle(
        new Request(`http://localhost/api/v1${SEARCH}?csv`, {
          method: 'POST',
          headers: { authorization: `Bearer ${app.tokenFor('viewer')}` },
          body: JSON.stringify({ status: ['created'], sort: { field: '_createdAt', order: 'asc' } }),
        }),
      );
      const text = new TextDecoder('utf-8', { ignoreBOM: true }).decode(await res.arrayBuffer());
      const lines = text.split('\r\n');
      expect(lines[1]).toMatch(/^\d+,cms-media,'=SUM\(A1\),"Say ""hi"", friends",,,,,,,"a,b;line\nbreak;-x",created,/);
      expect(lines[2]).toMatch(/^\d+,cms-media,'\+1,'@x,/);
      expect(lines[3]).toMatch(/^\d+,cms-media,'-1,plain,,,,,,,"'=cmd\|calc;cr\rhere",created,/);
      const records = csvRecords(text);
      expect(records.map((r) => [r.name, r.displayName, r.tags])).toEqual([
        ["'=SUM(A1)", 'Say "hi", friends', 'a,b;line\nbreak;-x'],
        ["'+1", "'@x", ''],
        ["'-1", 'plain', "'=cmd|calc;cr\rhere"],
        ["'@x", 'Café crème', ''],
      ]);
    });

    it('applies limit and offset only when given', async () => {
      const all = csvRecords((await csvOf(t, {})).text).map((r) => r.name);
      expect(csvRecords((await csvOf(t, {}, 'csv&limit=2')).text).map((r) => r.name)).toEqual(all.slice(0, 2));
      expect(csvRecords((await csvOf(t, {}, 'csv&limit=2&offset=1')).text).map((r) => r.name)).toEqual(all.slice(1, 3));
      expect(csvRecords((await csvOf(t, { offset: 3 })).text).map((r) => r.name)).toEqual(all.slice(3));
      expect(csvRecords((await csvOf(t, { offset: 3 }, 'csv&offset=4')).text).map((r) => r.name)).toEqual(all.slice(4));
    });
  });
});

/** Objects written straight into the table (volume only; the behaviour cases above go through the API). */
function insertMany(t: TestApp, count: number): void {
  const insert = t.deps.sqlite.prepare(
    `INSERT INTO objects (bucket, name, display_name, description, tags, status, size, duration, metadata, search_text, created_at, updated_at)
     VALUES ('cms-media', ?, ?, '', ?, 'uploaded', ?, ?, '{}', ?, ?, ?) RETURNING id`,
  );
  const tag = t.deps.sqlite.prepare('INSERT INTO object_tags (object_id, tag) VALUES (?, ?)');
  const base = Date.parse('2026-01-01T00:00:00Z');
  t.deps.sqlite.transaction(() => {
    for (let i = 0; i < count; i++) {
      // Few distinct values, so ties cross every page boundary.
      const displayName = ['Alpha', 'beta', 'Gamma', 'alpha'][i % 4] as string;
      const tags = i % 3 === 0 ? ['even'] : ['odd', 'lobby'];
      const name = `bulk-${i}.bin`;
      const row = insert.get(
        name,
        displayName,
        JSON.stringify(tags),
        i % 5 === 0 ? null : (i * 7) % 13,
        i % 2 === 0 ? null : (i * 11) % 17,
        [name, displayName, '', ...tags].join('\n').toLowerCase(),
        base + (i % 10) * MINUTE,
        base,
      ) as { id: number };
      for (const tg of tags) tag.run(row.id, tg);
    }
  })();
}

describe('_advancedSearch at volume', () => {
  const COUNT = 2 * CSV_PAGE + 500;
  let t: TestApp;
  beforeAll(() => {
    t = makeTestApp();
    insertMany(t, COUNT);
  });

  const jsonIds = async (body: Body, query: Record<string, string> = {}) => {
    const res = await t.call('POST', SEARCH, { as: 'viewer', body, query });
    expect(res.status).toBe(200);
    return { ids: (res.body as Obj[]).map((o) => o._id), total: Number(res.headers.get('x-total-count')) };
  };

  const sorts = [
    undefined,
    { field: '_createdAt', order: 'asc' },
    { field: 'displayName', order: 'asc' },
    { field: 'displayName', order: 'desc' },
    { field: 'objectSize', order: 'asc' },
    { field: 'objectSize', order: 'desc' },
    { field: 'duration', order: 'asc' },
    { field: 'duration', order: 'desc' },
  ];

  it.each(sorts.map((s) => [s]))('the CSV streams every match in pages, in the JSON order (sort %j)', async (sort) => {
    for (const criteria of [{}, { tags: { all: ['lobby'] } }]) {
      const body = { ...criteria, ...(sort ? { sort } : {}) };
      const json = await jsonIds(body);
      expect(json.ids.length).toBe(json.total);
      const { text, res } = await csvOf(t, body);
      expect(res.headers.get('x-total-count')).toBe(String(json.total));
      const ids = csvRecords(text).map((r) => Number(r._id));
      expect(ids).toEqual(json.ids);
      expect(new Set(ids).size).toBe(ids.length);
    }
  });

  it('pages of JSON put together give the whole answer, without gaps or repeats', async () => {
    for (const sort of [undefined, { field: 'displayName', order: 'desc' }, { field: 'duration', order: 'asc' }]) {
      const body = sort ? { sort } : {};
      const whole = await jsonIds(body);
      expect(whole.total).toBe(COUNT);
      const paged: number[] = [];
      for (let offset = 0; offset < COUNT; offset += 700) {
        const page = await jsonIds(body, { limit: '700', offset: String(offset) });
        expect(page.total).toBe(COUNT);
        paged.push(...page.ids);
      }
      expect(paged).toEqual(whole.ids);
    }
  });

  it('the CSV leaves in pieces as the client reads, and a client going away ends it', async () => {
    const request = () =>
      t.app.handle(
        new Request(`http://localhost/api/v1${SEARCH}?csv`, {
          method: 'POST',
          headers: { authorization: `Bearer ${t.tokenFor('viewer')}` },
          body: JSON.stringify({ sort: { field: 'displayName' } }),
        }),
      );
    const reader = (await request()).body?.getReader();
    let chunks = 0;
    while (reader) {
      const { done } = await reader.read();
      if (done) break;
      chunks++;
    }
    // The header, then one piece per CSV_PAGE rows.
    expect(chunks).toBeGreaterThanOrEqual(Math.ceil(COUNT / CSV_PAGE));
    const cut = (await request()).body?.getReader();
    await cut?.read();
    await cut?.cancel();
    expect((await csvOf(t, {})).res.status).toBe(200);
  });

  it('a CSV limit crossing pages stops at the limit; its offset shifts the start', async () => {
    const all = await jsonIds({ sort: { field: 'displayName', order: 'asc' } });
    const { text } = await csvOf(t, { sort: { field: 'displayName', order: 'asc' } }, 'csv&limit=1500&offset=700');
    expect(csvRecords(text).map((r) => Number(r._id))).toEqual(all.ids.slice(700, 2200));
  });

  it('a JSON page is cut by limit; X-Total-Count still counts every match', async () => {
    const res = await jsonIds({ tags: { any: ['odd', 'even'] } }, { limit: '3' });
    expect(res.ids).toHaveLength(3);
    expect(res.total).toBe(COUNT);
  });
});
