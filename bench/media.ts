/**
 * Media upload and download against the floor (the media issue's bars): a SIZE_MB (1024) file over
 * loopback, RUNS (3) times, floor and pmsd alternating in the same run.
 *
 *   bun bench/media.ts                       (pmsd from source)
 *   npm run build && PMSD=dist/pmsd bun bench/media.ts
 *   SIZE_MB=1024 RUNS=3 RANGES=1000 bun bench/media.ts
 *
 * Each run: the floor (bench/media-floor.ts: the body streamed into a file, no hashing) takes the
 * file, then pmsd takes it as an object's content (`PUT /objects/{id}/content`: streamed, MD5 and
 * SHA-256 computed, flushed, probed, renamed, recorded). Then both serve it back whole, and RANGES
 * random `Range` reads of 64 KiB (8 at a time). pmsd's RSS is sampled every 50 ms during each
 * transfer. Bars: upload throughput at least half the floor's, RSS growth during the upload under
 * 50 MB; download within 2× of the floor, RSS flat.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { adminSession, daemonEnv, duringRss, freePort, median, waitFor } from './support';

const ROOT = resolve(import.meta.dir, '..');
const SIZE = Number(process.env.SIZE_MB ?? 1024) * 1024 * 1024;
const RUNS = Number(process.env.RUNS ?? 3);
const RANGES = Number(process.env.RANGES ?? 1000);
const RANGE_BYTES = 64 * 1024;
const PMSD = process.env.PMSD ? resolve(ROOT, process.env.PMSD) : null;

const work = mkdtempSync(join(tmpdir(), 'pms-bench-media-'));
const source = join(work, 'source.bin');

/** A file of SIZE pseudo-random bytes (1 MiB of random data repeated, so nothing compresses it). */
async function makeSource(): Promise<void> {
  const block = crypto.getRandomValues(new Uint8Array(1024 * 1024));
  const file = await open(source, 'w');
  for (let written = 0; written < SIZE; written += block.byteLength)
    await file.write(block, 0, Math.min(block.byteLength, SIZE - written));
  await file.close();
}

/** Reads a response body to the end without keeping it; the byte count. */
async function drain(res: Response): Promise<number> {
  let bytes = 0;
  const reader = (res.body as ReadableStream<Uint8Array>).getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return bytes;
    bytes += value.byteLength;
  }
}

async function rangeReads(url: string, headers: Record<string, string>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < RANGES) {
      next++;
      const start = Math.floor(Math.random() * (SIZE - RANGE_BYTES));
      const res = await fetch(url, { headers: { ...headers, range: `bytes=${start}-${start + RANGE_BYTES - 1}` } });
      if (res.status !== 206 || (await drain(res)) !== RANGE_BYTES) throw new Error(`range read: ${res.status}`);
    }
  };
  await Promise.all(Array.from({ length: 8 }, worker));
}

const mbps = (ms: number) => SIZE / 1024 / 1024 / (ms / 1000);

await makeSource();
const floorPort = freePort();
const floor = Bun.spawn([process.execPath, join(ROOT, 'bench/media-floor.ts'), String(floorPort), work], {
  stdout: 'ignore',
  stderr: 'inherit',
});
const port = freePort();
const dataDir = join(work, 'pmsd');
const daemon = Bun.spawn(PMSD ? [PMSD, 'serve'] : [process.execPath, join(ROOT, 'src/main.ts'), 'serve'], {
  env: daemonEnv(port, dataDir),
  stdout: 'ignore',
  stderr: 'inherit',
});

try {
  const base = `http://127.0.0.1:${port}/api/v1`;
  const floorUrl = `http://127.0.0.1:${floorPort}/`;
  await waitFor(`${base}/health`);
  await Bun.sleep(300);
  const auth = { authorization: `Bearer ${await adminSession(`http://127.0.0.1:${port}`)}` };
  console.log(`${PMSD ?? 'pmsd from source'}; ${SIZE / 1024 / 1024} MiB, ${RUNS} runs, ${RANGES} range reads`);

  const up = { floor: [] as number[], pmsd: [] as number[], growth: [] as number[], floorGrowth: [] as number[] };
  const down = { floor: [] as number[], pmsd: [] as number[], growth: [] as number[] };
  const ranges = { floor: [] as number[], pmsd: [] as number[] };
  for (let run = 1; run <= RUNS; run++) {
    const f = await duringRss(floor.pid, async () => {
      const res = await fetch(floorUrl, { method: 'PUT', body: Bun.file(source) });
      if (res.status !== 204) throw new Error(`floor upload ${res.status}`);
    });
    up.floor.push(mbps(f.ms));
    up.floorGrowth.push(f.peak - f.before);

    const created = await fetch(`${base}/objects/cms-media`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ name: `bench-${run}.bin` }),
    });
    const { _id } = (await created.json()) as { _id: number };
    const p = await duringRss(daemon.pid, async () => {
      const res = await fetch(`${base}/objects/${_id}/content`, {
        method: 'PUT',
        headers: { ...auth, 'content-length': String(SIZE) },
        body: Bun.file(source),
      });
      if (res.status !== 200) throw new Error(`pmsd upload ${res.status} ${await res.text()}`);
    });
    up.pmsd.push(mbps(p.ms));
    up.growth.push(p.peak - p.before);

    const fd = await duringRss(floor.pid, async () => drain(await fetch(floorUrl)));
    down.floor.push(mbps(fd.ms));
    const contentUrl = `${base}/objects/${_id}/content`;
    const pd = await duringRss(daemon.pid, async () => drain(await fetch(contentUrl, { headers: auth })));
    if (pd.result !== SIZE) throw new Error(`pmsd download gave ${pd.result} bytes`);
    down.pmsd.push(mbps(pd.ms));
    down.growth.push(pd.peak - pd.before);

    const fr = await duringRss(floor.pid, () => rangeReads(floorUrl, {}));
    ranges.floor.push(fr.ms);
    const pr = await duringRss(daemon.pid, () => rangeReads(contentUrl, auth));
    ranges.pmsd.push(pr.ms);
    console.log(
      `run ${run}: upload floor ${mbps(f.ms).toFixed(0)} MB/s (RSS +${(f.peak - f.before).toFixed(1)} MB), pmsd ${mbps(p.ms).toFixed(0)} MB/s (RSS ${p.before.toFixed(1)} → peak ${p.peak.toFixed(1)} MB); ` +
        `download floor ${mbps(fd.ms).toFixed(0)} MB/s, pmsd ${mbps(pd.ms).toFixed(0)} MB/s (RSS ${pd.before.toFixed(1)} → peak ${pd.peak.toFixed(1)} MB); ` +
        `${RANGES} ranges floor ${fr.ms.toFixed(0)} ms, pmsd ${pr.ms.toFixed(0)} ms (RSS peak ${pr.peak.toFixed(1)} MB)`,
    );
    await fetch(`${base}/objects/${_id}?purge=true`, { method: 'DELETE', headers: auth });
  }
  const ratio = (a: number[], b: number[]) => median(a) / median(b);
  console.log(
    `upload: pmsd ${median(up.pmsd).toFixed(0)} MB/s = ${ratio(up.pmsd, up.floor).toFixed(2)}× floor (bar ≥ 0.5×); RSS growth median ${median(up.growth).toFixed(1)} MB (bar < 50 MB; the floor's ${median(up.floorGrowth).toFixed(1)} MB)`,
  );
  console.log(
    `download: pmsd ${median(down.pmsd).toFixed(0)} MB/s = ${ratio(down.pmsd, down.floor).toFixed(2)}× floor (bar ≥ 0.5×); RSS growth median ${median(down.growth).toFixed(1)} MB`,
  );
  console.log(
    `ranges: pmsd ${median(ranges.pmsd).toFixed(0)} ms = ${ratio(ranges.pmsd, ranges.floor).toFixed(2)}× the floor's time (bar ≤ 2×)`,
  );
} finally {
  daemon.kill();
  floor.kill();
  await daemon.exited;
  await floor.exited;
  rmSync(work, { recursive: true, force: true });
}
