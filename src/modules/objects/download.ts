/**
 * Serving an object's content (§12): `ETag` (its SHA-256) with `If-None-Match` → 304 (or, without
 * it, `If-Modified-Since` against `Last-Modified`, the record's last change), one `Range`
 * (`bytes=a-b`, `a-`, `-n`) → 206, a range past the end → 416 with `Content-Range: bytes *\/size`,
 * several ranges or an `If-Range` that no longer matches → the whole content (RFC 9110 allows both).
 *
 * The bytes go out as a file body (`Bun.file(…).slice(…)`): Bun sends them from the file itself
 * (sendfile), never holding them in memory, and stops when the client goes away. A version that is
 * replaced or purged is not removed at once but retired for a grace period (files.ts `retireFile`),
 * so an answer built from the row a moment earlier still finds its file, and once opened it is read
 * whole. HTML, SVG and other documents a browser would run are sent as attachments; every answer
 * carries `nosniff`. A download attributed to a player (§12 rule 6) is not a file body: its bytes go
 * through a stream that counts what the client took (`countedStream`), one chunk in memory at a
 * time; every other download keeps the file body.
 */
import { existsSync } from 'node:fs';
import type { Deps } from '../../deps';
import { AppError, notFound } from '../../http/errors';
import { contentPath } from './files';
import type { ObjectRow } from './mapper';
import { isActiveContent } from './probe';

type ByteRange = { start: number; end: number };

/** The one range asked for, `null` for the whole content, `'unsatisfiable'` when it lies past the end. */
function rangeOf(header: string | null, size: number): ByteRange | null | 'unsatisfiable' {
  if (!header) return null;
  const m = /^\s*bytes\s*=\s*(\d*)\s*-\s*(\d*)\s*$/i.exec(header);
  if (!m) return null; // several ranges, or another unit: the whole content
  const [, a = '', b = ''] = m;
  if (a === '' && b === '') return null;
  if (a === '') {
    const n = Number(b);
    if (n === 0) return 'unsatisfiable';
    return { start: Math.max(0, size - n), end: size - 1 };
  }
  const start = Number(a);
  if (start >= size) return 'unsatisfiable';
  const end = b === '' ? size - 1 : Math.min(Number(b), size - 1);
  if (end < start) return null;
  return { start, end };
}

const quoted = (sha256: string): string => `"${sha256}"`;

function etagMatches(header: string | null, etag: string): boolean {
  if (!header) return false;
  return header.split(',').some((tag) => {
    const t = tag.trim().replace(/^W\//, '');
    return t === '*' || t === etag;
  });
}

/** `If-Modified-Since` at or after the content's last change (HTTP dates have whole seconds). */
function notModifiedSince(request: Request, updatedAt: number): boolean {
  const since = Date.parse(request.headers.get('if-modified-since') ?? '');
  return Number.isFinite(since) && Math.floor(updatedAt / 1000) * 1000 <= since;
}

/**
 * The answer to `GET /objects/{id}/content` for a row that has content. With `onSent` (a download
 * attributed to a player, §12 rule 6) the body is a counting stream instead of the file body, and
 * `onSent(start, bytes)` runs once the body has finished or the client left.
 */
export function serveContent(
  deps: Deps,
  row: ObjectRow,
  request: Request,
  onSent?: (start: number, sent: number) => void,
): Response {
  const path = contentPath(deps, row);
  if (path === null || row.status !== 'uploaded' || row.sha256 === null || row.size === null || !existsSync(path)) {
    throw notFound('object content', row.id);
  }
  const etag = quoted(row.sha256);
  const headers = new Headers({
    etag,
    'accept-ranges': 'bytes',
    'x-content-type-options': 'nosniff',
    'last-modified': new Date(row.updatedAt).toUTCString(),
    'cache-control': 'private, no-cache',
  });
  const active = row.media ? isActiveContent({ ...row.media, contentType: row.contentType ?? '' }) : false;
  const filename = encodeURIComponent(row.name);
  headers.set('content-disposition', `${active ? 'attachment' : 'inline'}; filename*=UTF-8''${filename}`);
  const ifNoneMatch = request.headers.get('if-none-match');
  if (ifNoneMatch !== null ? etagMatches(ifNoneMatch, etag) : notModifiedSince(request, row.updatedAt)) {
    return new Response(null, { status: 304, headers });
  }
  const size = row.size;
  const ifRange = request.headers.get('if-range');
  const range = ifRange !== null && ifRange.trim() !== etag ? null : rangeOf(request.headers.get('range'), size);
  if (range === 'unsatisfiable') {
    throw new AppError('range_not_satisfiable', `the range lies beyond the content's ${size} bytes`, undefined, {
      'content-range': `bytes */${size}`,
    });
  }
  headers.set('content-type', row.contentType ?? 'application/octet-stream');
  const start = range?.start ?? 0;
  const length = range ? range.end - range.start + 1 : size;
  headers.set('content-length', String(length));
  if (range) headers.set('content-range', `bytes ${range.start}-${range.end}/${size}`);
  const body = Bun.file(path).slice(start, start + length);
  const status = range ? 206 : 200;
  if (!onSent || length === 0) return new Response(body, { status, headers });
  return new Response(
    countedStream(body, (sent) => onSent(start, sent)),
    { status, headers },
  );
}

/**
 * The bytes of `blob` as a stream that reports, once, how many of them the client took: when it has
 * read to the end, or when it went away (`cancel`). A chunk counts once the client asks for the next
 * one (or the end), so one cut off in the middle is not counted. Pulled one chunk at a time, so
 * memory stays at one chunk whatever the size.
 */
function countedStream(blob: Blob, report: (sent: number) => void): ReadableStream<Uint8Array> {
  const reader = blob.stream().getReader();
  let sent = 0;
  let handed = 0;
  let reported = false;
  const finish = () => {
    if (reported) return;
    reported = true;
    report(sent);
  };
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        sent += handed;
        handed = 0;
        try {
          const { done, value } = await reader.read();
          if (done) {
            controller.close();
            finish();
            return;
          }
          handed = value.byteLength;
          controller.enqueue(value);
        } catch (err) {
          finish();
          controller.error(err);
        }
      },
      cancel(reason) {
        finish();
        return reader.cancel(reason);
      },
    },
    { highWaterMark: 0 },
  );
}
