/**
 * Media search benchmark (§12 `_advancedSearch`): OBJECTS (100 000) objects in cms-media, then
 * SEARCHES (50) searches with a text query, a tag filter and a sort by displayName, timed over HTTP
 * (bar: < 20 ms median), once as a UI page (`limit=50`) and once with every match (no limit); then the
 * CSV of every object in the bucket, streamed and counted while the daemon's RSS is sampled every
 * 100 ms (start, peak, end: memory must stay flat).
 *
 *   bun bench/media-search.ts          (OBJECTS=100000 SEARCHES=50)
 *
 * The daemon runs from source on free ports with a fresh data directory and is stopped afterwards.
 * The objects are written straight into its database with the daemon stopped (realistic names, 20
 * tags with 1–3 per object, types, sizes, durations, image and video dimensions; no content files:
 * a search never reads them), then the daemon starts again on that database.
 */
import { Database } from 'bun:sqlite';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { seededRandom } from '../src/prng';
import { adminSession, daemonEnv, duringRss, freePort, median, quantile, waitFor } from './support';

export const TAGS = [
  'lobby',
  'foyer',
  'stage',
  'bar',
  'outdoor',
  'christmas',
  'summer',
  'brand',
  'sponsor',
  'menu',
  'promo',
  'loop',
  'intro',
  'outro',
  'background',
  'kids',
  'vip',
  'emergency',
  'wayfinding',
  'archive',
];

const WORDS = [
  'Welcome',
  'Lobby',
  'Sunset',
  'Ocean',
  'Festival',
  'Concert',
  'Trailer',
  'Teaser',
  'Ambient',
  'Banner',
  'Sponsor',
  'Menu',
  'Countdown',
  'Holiday',
  'Winter',
  'Spring',
  'Night',
  'Morning',
  'Skyline',
  'Aurora',
  'Forest',
  'Harbour',
  'Gallery',
  'Arena',
  'Stage',
  'Backdrop',
  'Logo',
  'Intro',
  'Finale',
  'Café',
  'Garden',
  'Fireworks',
];

interface Kind {
  type: 'video' | 'image' | 'audio' | 'document';
  subtype: string;
  extension: string;
  contentType: string;
  share: number;
}

const KINDS: Kind[] = [
  { type: 'video', subtype: 'mp4', extension: 'mp4', contentType: 'video/mp4', share: 0.3 },
  { type: 'video', subtype: 'webm', extension: 'webm', contentType: 'video/webm', share: 0.1 },
  { type: 'image', subtype: 'png', extension: 'png', contentType: 'image/png', share: 0.2 },
  { type: 'image', subtype: 'jpeg', extension: 'jpg', contentType: 'image/jpeg', share: 0.15 },
  { type: 'audio', subtype: 'mpeg', extension: 'mp3', contentType: 'audio/mpeg', share: 0.15 },
  { type: 'document', subtype: 'pdf', extension: 'pdf', contentType: 'application/pdf', share: 0.1 },
];

const DAY = 86_400_000;

/** The kind whose share of the unit interval holds `r`. */
function kindAt(r: number): Kind {
  let rest = r;
  for (const kind of KINDS) {
    rest -= kind.share;
    if (rest < 0) return kind;
  }
  return KINDS[0] as Kind;
}

/**
 * Writes `count` objects into cms-media of a migrated database (one transaction), as uploads would
 * have left them: about 90 % uploaded, 6 % created (no content yet), 4 % in the trash.
 */
export function seedObjects(db: Database, count: number, now = Date.now(), seed = 42): void {
  const random = seededRandom(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)] as T;
  const between = (lo: number, hi: number) => Math.floor(lo + random() * (hi - lo));
  const hex = (n: number) => {
    let s = '';
    while (s.length < n)
      s += Math.floor(random() * 0x100000000)
        .toString(16)
        .padStart(8, '0');
    return s.slice(0, n);
  };
  const insert = db.prepare(
    `INSERT INTO objects (bucket, name, display_name, description, tags, status, file, content_type, size, md5, sha256,
       metadata, media, media_type, duration, search_text, deleted_at, purge_at, created_at, updated_at)
     VALUES ('cms-media', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`,
  );
  const tag = db.prepare('INSERT INTO object_tags (object_id, tag) VALUES (?, ?)');
  db.transaction(() => {
    for (let i = 1; i <= count; i++) {
      const kind = kindAt(random());
      const words = [pick(WORDS), pick(WORDS), ...(random() < 0.4 ? [pick(WORDS)] : [])];
      const displayName = `${words.join(' ')} ${String(i).padStart(6, '0')}`;
      const name = `${displayName.toLowerCase().replaceAll(' ', '-')}.${kind.extension}`;
      const description = random() < 0.5 ? '' : `${pick(WORDS)} ${kind.type} for the ${pick(WORDS).toLowerCase()} area`;
      const tags = [...new Set(Array.from({ length: between(1, 4) }, () => pick(TAGS)))];
      const s = random();
      const status = s < 0.9 ? 'uploaded' : s < 0.96 ? 'created' : 'deleted';
      const hasContent = status !== 'created';
      const timed = kind.type === 'video' || kind.type === 'audio';
      const duration = timed && hasContent ? between(5_000, 2 * 3600_000) : null;
      const size = !hasContent
        ? null
        : kind.type === 'video'
          ? between(5e6, 2e9)
          : kind.type === 'image'
            ? between(5e4, 1e7)
            : kind.type === 'audio'
              ? between(1e6, 5e7)
              : between(1e4, 5e6);
      const [width, height] = pick([
        [1920, 1080],
        [3840, 2160],
        [1280, 720],
        [1080, 1920],
        [800, 600],
      ]) as [number, number];
      const mediaInfo =
        kind.type === 'video'
          ? { '@type': 'Video', width, height, duration, frameRate: pick([25, 30, 50, 60]) }
          : kind.type === 'image'
            ? { '@type': 'Image', width, height }
            : kind.type === 'audio'
              ? { '@type': 'Audio', duration }
              : undefined;
      const media = hasContent
        ? {
            type: kind.type,
            subtype: kind.subtype,
            extension: kind.extension,
            ...(duration === null ? {} : { duration }),
            ...(mediaInfo ? { mediaInfo } : {}),
          }
        : null;
      const sha256 = hasContent ? hex(64) : null;
      const createdAt = now - between(0, 730) * DAY - between(0, DAY);
      const updatedAt = createdAt + between(0, 30 * DAY);
      const metadata = random() < 0.3 ? { room: pick(['A', 'B', 'C']), priority: between(1, 4) } : {};
      const searchText = [name, displayName, description, ...tags].join('\n').toLowerCase();
      const row = insert.get(
        name,
        displayName,
        description,
        JSON.stringify(tags),
        status,
        hasContent ? `${i}-${sha256}` : null,
        hasContent ? kind.contentType : null,
        size,
        hasContent ? hex(32) : null,
        sha256,
        JSON.stringify(metadata),
        media ? JSON.stringify(media) : null,
        media ? kind.type : null,
        duration,
        searchText,
        status === 'deleted' ? updatedAt : null,
        status === 'deleted' ? updatedAt + 7 * DAY : null,
        createdAt,
        updatedAt,
      ) as { id: number };
      for (const t of tags) tag.run(row.id, t);
    }
  })();
}

async function main(): Promise<void> {
  const ROOT = resolve(import.meta.dir, '..');
  const OBJECTS = Number(process.env.OBJECTS ?? 100_000);
  const SEARCHES = Number(process.env.SEARCHES ?? 50);
  const dataDir = mkdtempSync(join(tmpdir(), 'pms-bench-media-'));
  const port = freePort();
  const base = `http://127.0.0.1:${port}/api/v1`;
  const start = () =>
    Bun.spawn([process.execPath, join(ROOT, 'src/main.ts'), 'serve'], {
      env: { ...daemonEnv(port, dataDir, false), PMS_LOG_LEVEL: 'warn' },
      stdout: 'ignore',
      stderr: 'inherit',
    });
  let daemon = start();
  try {
    // The first start makes and migrates the database; the rows go in with the daemon stopped.
    await waitFor(`${base}/health`);
    daemon.kill('SIGTERM');
    await daemon.exited;
    const seedStart = performance.now();
    const db = new Database(join(dataDir, 'pms.db'));
    seedObjects(db, OBJECTS);
    db.close();
    const seedS = (performance.now() - seedStart) / 1000;
    daemon = start();
    await waitFor(`${base}/health`);
    const session = await adminSession(base.replace(/\/api\/v1$/, ''));
    const headers = { authorization: `Bearer ${session}`, 'content-type': 'application/json' };
    const url = `${base}/objects/cms-media/_advancedSearch`;

    const time = async (query: string, body: unknown) => {
      const ms: number[] = [];
      let total = '';
      let count = 0;
      let bytes = 0;
      for (let i = 0; i < SEARCHES; i++) {
        const t0 = performance.now();
        const res = await fetch(`${url}${query}`, { method: 'POST', headers, body: JSON.stringify(body) });
        const text = await res.text();
        ms.push(performance.now() - t0);
        if (res.status !== 200) throw new Error(`search ${res.status} ${text}`);
        total = res.headers.get('x-total-count') ?? '';
        count = (JSON.parse(text) as unknown[]).length;
        bytes = text.length;
      }
      return { ms, total, count, bytes };
    };
    const spread = (xs: number[]) =>
      `p50 ${median(xs).toFixed(2)} ms, p90 ${quantile(xs, 0.9).toFixed(2)} ms, min ${Math.min(...xs).toFixed(2)}, max ${Math.max(...xs).toFixed(2)}`;
    // Warm the daemon's statement and page caches as a first user would.
    await fetch(url, { method: 'POST', headers, body: '{}' }).then((r) => r.arrayBuffer());

    console.log(`seeded ${OBJECTS} objects in ${seedS.toFixed(1)} s`);
    const searches: Array<[string, string, unknown]> = [
      [
        'text "sunset" + tag lobby + sort displayName, limit=50',
        '?limit=50',
        { query: 'sunset', tags: { all: ['lobby'] }, sort: { field: 'displayName', order: 'asc' } },
      ],
      [
        'text "sunset" + tag lobby + sort displayName, every match',
        '',
        { query: 'sunset', tags: { all: ['lobby'] }, sort: { field: 'displayName', order: 'asc' } },
      ],
      [
        'text "ocean" + tags any [stage, bar] + types [video] + sort displayName desc, limit=50',
        '?limit=50',
        {
          query: 'ocean',
          tags: { any: ['stage', 'bar'] },
          types: ['video'],
          sort: { field: 'displayName', order: 'desc' },
        },
      ],
      [
        'text "sunset" only + sort displayName, limit=50',
        '?limit=50',
        { query: 'sunset', sort: { field: 'displayName' } },
      ],
      ['no criteria (default sort), limit=50', '?limit=50', {}],
    ];
    for (const [label, query, body] of searches) {
      const r = await time(query, body);
      console.log(
        `${label}: ${spread(r.ms)} (X-Total-Count ${r.total}, ${r.count} objects, ${(r.bytes / 1024).toFixed(0)} KiB); bar < 20 ms median: ${median(r.ms) < 20 ? 'met' : 'NOT met'}`,
      );
    }

    // The CSV of every object (any status), streamed; RSS sampled every 100 ms. Twice: the first
    // download also fills SQLite's page cache (64 MiB) with the table; the second shows what stays.
    const pid = daemon.pid;
    for (const run of [1, 2]) {
      const sampled = await duringRss(
        pid,
        async () => {
          const res = await fetch(`${url}?csv=true`, {
            method: 'POST',
            headers,
            body: JSON.stringify({ status: ['created', 'uploaded', 'deleted'] }),
          });
          let bytes = 0;
          let lines = 0;
          const reader = res.body?.getReader();
          while (reader) {
            const { done, value } = await reader.read();
            if (done) break;
            bytes += value.byteLength;
            for (const b of value) if (b === 10) lines++;
          }
          return { res, bytes, lines };
        },
        100,
      );
      const { res, bytes, lines } = sampled.result;
      const csvS = sampled.ms / 1000;
      const [startRss, peak, endRss] = [sampled.before, sampled.peak, sampled.after];
      console.log(
        `CSV of every object (run ${run}): ${res.status}, X-Total-Count ${res.headers.get('x-total-count')}, ${lines - 1} rows, ${(bytes / 1024 / 1024).toFixed(1)} MiB in ${csvS.toFixed(2)} s; daemon RSS start ${startRss.toFixed(1)} MB, peak ${peak.toFixed(1)} MB, end ${endRss.toFixed(1)} MB`,
      );
    }
  } finally {
    daemon.kill('SIGTERM');
    await daemon.exited;
    rmSync(dataDir, { recursive: true, force: true });
  }
}

if (import.meta.main) await main();
