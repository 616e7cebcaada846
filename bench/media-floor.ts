/**
 * The floor of the media bench (bench/media.ts): a plain `Bun.serve` that streams a PUT body into a
 * file (no hashing, no checks, no database) and serves that file back with `Range`, the least any
 * server must do to store and return the same bytes.
 *
 *   bun bench/media-floor.ts <port> <dir>
 */
import { open } from 'node:fs/promises';
import { join } from 'node:path';

const port = Number(process.argv[2]);
const dir = process.argv[3] ?? '.';
const path = join(dir, 'floor.bin');

Bun.serve({
  port,
  hostname: '127.0.0.1',
  maxRequestBodySize: Number.MAX_SAFE_INTEGER,
  async fetch(request) {
    if (request.method === 'PUT') {
      const file = await open(path, 'w');
      try {
        for await (const chunk of request.body ?? []) await file.write(chunk);
        await file.sync();
      } finally {
        await file.close();
      }
      return new Response(null, { status: 204 });
    }
    const body = Bun.file(path);
    const range = /^bytes=(\d+)-(\d+)$/.exec(request.headers.get('range') ?? '');
    if (range) {
      const start = Number(range[1]);
      const end = Math.min(Number(range[2]), body.size - 1);
      return new Response(body.slice(start, end + 1), {
        status: 206,
        headers: { 'content-range': `bytes ${start}-${end}/${body.size}` },
      });
    }
    return new Response(body);
  },
});
console.log(`floor on ${port}`);
