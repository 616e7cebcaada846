/**
 * Value ingest and heartbeats beside an upload (the media issue: "value ingest and heartbeats stay
 * where they are while an upload runs; measure one beside the other"). One daemon, RUNS (3) rounds;
 * each round measures, with `wrk -t2 -c64` for DURATION (10s) and an integration token in
 * `isaac-token`, value writes and then heartbeats over SUBSYSTEMS (1000) subsystems, first alone and
 * then while uploads of SIZE_MB (256) follow each other into one object. Prints each figure, the
 * medians, the ratio beside/alone and the upload rate meanwhile.
 *
 *   bun bench/media-beside.ts                     (pmsd from source)
 *   npm run build && PMSD=dist/pmsd bun bench/media-beside.ts
 *
 * On this 2-core machine wrk, the daemon and the uploading client share the cores, so the ratio is
 * an upper bound of what an upload takes from ingest on an appliance where the uploader is elsewhere.
 * UPLOAD_MBPS paces the uploads to a rate (110: about what a 1 Gbit/s link carries), so ingest is
 * compared at the rate a venue's network gives instead of at loopback speed.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import {
  adminSession,
  daemonEnv,
  freePort,
  integrationToken,
  median,
  registerSubsystems,
  seedValues,
  waitFor,
  wrk,
} from './support';

const ROOT = resolve(import.meta.dir, '..');
const SHARED = process.env.BENCH_SHARED ?? '/work/shared/bench';
const RUNS = Number(process.env.RUNS ?? 3);
const DURATION = process.env.DURATION ?? '10s';
const SUBSYSTEMS = Number(process.env.SUBSYSTEMS ?? 1000);
const SIZE = Number(process.env.SIZE_MB ?? 256) * 1024 * 1024;
const PMSD = process.env.PMSD ? resolve(ROOT, process.env.PMSD) : null;
const UPLOAD_MBPS = Number(process.env.UPLOAD_MBPS ?? 0);

const work = mkdtempSync(join(tmpdir(), 'pms-bench-beside-'));
const source = join(work, 'source.bin');
const block = crypto.getRandomValues(new Uint8Array(1024 * 1024));
const file = await open(source, 'w');
for (let written = 0; written < SIZE; written += block.byteLength) await file.write(block);
await file.close();

const port = freePort();
const daemon = Bun.spawn(PMSD ? [PMSD, 'serve'] : [process.execPath, join(ROOT, 'src/main.ts'), 'serve'], {
  env: daemonEnv(port, join(work, 'pmsd')),
  stdout: 'ignore',
  stderr: 'inherit',
});

/** The bytes of one upload: the file as fast as loopback takes it, or paced to UPLOAD_MBPS. */
function uploadBody(): Blob | ReadableStream<Uint8Array> {
  if (!UPLOAD_MBPS) return Bun.file(source);
  const start = performance.now();
  let sent = 0;
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        if (sent >= SIZE) return controller.close();
        const wait = start + (sent / 1024 / 1024 / UPLOAD_MBPS) * 1000 - performance.now();
        if (wait > 0) await Bun.sleep(wait);
        const n = Math.min(block.byteLength, SIZE - sent);
        controller.enqueue(block.subarray(0, n));
        sent += n;
      },
    },
    { highWaterMark: 0 },
  );
}

/** Uploads SIZE bytes into object `id` again and again until `stop()`; the bytes moved per second. */
function uploading(base: string, session: string, id: number) {
  let stopped = false;
  let bytes = 0;
  const started = performance.now();
  const loop = (async () => {
    while (!stopped) {
      const res = await fetch(`${base}/api/v1/objects/${id}/content`, {
        method: 'PUT',
        headers: { authorization: `Bearer ${session}`, 'content-length': String(SIZE) },
        body: uploadBody(),
      });
      if (res.status !== 200) throw new Error(`upload answered ${res.status}: ${await res.text()}`);
      bytes += SIZE;
    }
  })();
  return {
    async stop(): Promise<number> {
      stopped = true;
      await loop;
      return bytes / 1024 / 1024 / ((performance.now() - started) / 1000);
    },
  };
}

try {
  const base = `http://127.0.0.1:${port}`;
  await waitFor(`${base}/api/v1/health`);
  const { offset, session } = await seedValues(base);
  await registerSubsystems(base, session, 'hb', SUBSYSTEMS);
  const token = await integrationToken(base, session, 'beside');
  const object = await fetch(`${base}/api/v1/objects/cms-media`, {
    method: 'POST',
    headers: { authorization: `Bearer ${await adminSession(base)}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'beside.bin' }),
  });
  const objectId = ((await object.json()) as { _id: number })._id;
  const auth = { AUTH_HEADER: 'isaac-token', AUTH_VALUE: token };
  const paths = {
    value: () =>
      wrk({
        port,
        script: join(import.meta.dir, 'post-value-auth.lua'),
        env: { BASE_SCRIPT: join(SHARED, 'post-value.lua'), ID_OFFSET: String(offset), ...auth },
        threads: '2',
        connections: '64',
        duration: DURATION,
      }),
    heartbeat: () =>
      wrk({
        port,
        script: join(import.meta.dir, 'heartbeat.lua'),
        env: { SUBSYSTEMS: String(SUBSYSTEMS), ...auth },
        threads: '2',
        connections: '64',
        duration: DURATION,
      }),
  };
  const figures = {
    value: { alone: [] as number[], beside: [] as number[] },
    heartbeat: { alone: [] as number[], beside: [] as number[] },
  };
  const uploadRates: number[] = [];
  console.log(`${PMSD ?? 'pmsd from source'}; wrk -t2 -c64 -d${DURATION}; uploads of ${SIZE / 1024 / 1024} MiB`);
  for (let run = 1; run <= RUNS; run++) {
    for (const path of ['value', 'heartbeat'] as const) {
      const alone = await paths[path]();
      const upload = uploading(base, session, objectId);
      const beside = await paths[path]();
      const rate = await upload.stop();
      for (const r of [alone, beside]) if (r.non2xx > 0) throw new Error(`${path}: ${r.non2xx} non-2xx answers`);
      figures[path].alone.push(alone.rps);
      figures[path].beside.push(beside.rps);
      uploadRates.push(rate);
      console.log(
        `run ${run} ${path.padEnd(9)} alone ${alone.rps.toFixed(0)} req/s, beside uploads ${beside.rps.toFixed(0)} req/s (${((100 * beside.rps) / alone.rps).toFixed(0)} %), uploads meanwhile ${rate.toFixed(0)} MB/s`,
      );
    }
  }
  for (const path of ['value', 'heartbeat'] as const) {
    const a = median(figures[path].alone);
    const b = median(figures[path].beside);
    console.log(
      `${path}: alone ${a.toFixed(0)} req/s, beside uploads ${b.toFixed(0)} req/s = ${((100 * b) / a).toFixed(0)} %`,
    );
  }
  console.log(`uploads meanwhile: median ${median(uploadRates).toFixed(0)} MB/s`);
} finally {
  daemon.kill();
  await daemon.exited;
  rmSync(work, { recursive: true, force: true });
}
