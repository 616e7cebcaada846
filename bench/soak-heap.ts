/**
 * A `--preload` for `FROM_SOURCE=1 PRELOAD=bench/soak-heap.ts bun bench/soak.ts`: every 20 s the
 * daemon prints its JS heap (used, total), native memory and the most numerous object types to
 * stderr, to tell a JS leak from native memory (SQLite's page cache, the allocator) when RSS grows.
 */
import { heapStats } from 'bun:jsc';

const started = Date.now();
const MiB = 1024 * 1024;
setInterval(() => {
  const m = process.memoryUsage();
  const h = heapStats();
  const top = Object.entries(h.objectTypeCounts)
    .sort((a, b) => b[1] - a[1])
    .slice(0, 8)
    .map(([type, n]) => `${type}=${n}`)
    .join(' ');
  process.stderr.write(
    `heap t=${Math.round((Date.now() - started) / 1000)} s rss=${(m.rss / MiB).toFixed(1)} ` +
      `heapUsed=${(m.heapUsed / MiB).toFixed(1)} heapTotal=${(m.heapTotal / MiB).toFixed(1)} ` +
      `external=${(m.external / MiB).toFixed(1)} objects=${h.objectCount} ${top}\n`,
  );
}, 20_000).unref();
