/**
 * Serving an object's content (§12): `ETag` (its SHA-256) with `If-None-Match` → 304 (or, without
 * it, `If-Modified-Since` against `Last-Modified`, the record's last change), one `Range`
 * (`bytes=a-b`, `a-`, `-n`) → 206, a range past the end → 416 with `Content-Range: bytes *\/size`,
 * several ranges or an `If-Range` that no longer matches → the whole content (RFC 9110 allows both).
 *
 * The file is opened before the answer starts, so a version replaced or purged a moment later is
 * still read whole from the open descriptor; it is read in 1 MiB chunks as the client takes them
 * (memory stays flat), and closed when the client has everything or goes away. An answer of at most
 * 256 KiB is read at once into its buffer. HTML, SVG and other
 * documents a browser would run are sent as attachments; every answer carries `nosniff`.
 */
import { closeSync, openSync, readSync } from 'node:fs';
import { type FileHandle, open } from 'node:fs/promises';
import type { Deps } from '../../deps';
import { AppError, notFound } from '../../http/errors';
import { contentPath } from './files';
import type { ObjectRow } from './mapper';
import { isActiveContent } from './probe';

const CHUNK = 1024 * 1024;
/** Answers up to this size are read in one synchronous read (a page-cache copy, well under a millisecond). */
const SMALL = 256 * 1024;

function readSmall(path: string, start: number, length: number, id: number): Uint8Array {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch {
    throw notFound('object content', id);
  }
  try {
    const buffer = new Uint8Array(length);
    let read = 0;
    while (read < length) {
      const n = readSync(fd, buffer, read, length - read, start + read);
      if (n === 0) throw new Error('the stored file is shorter than its record');
      read += n;
    }
    return buffer;
  } finally {
    closeSync(fd);
  }
}

/** What a served download reports when it ends (for copy status, §14 rule 4). */
export interface DownloadEnd {
  /** Bytes the client took. */
  sent: number;
  /** The whole content went out, from its first byte to its last. */
  whole: boolean;
}

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

/** A stream of `length` bytes of `file` from `start`, closing the file at the end or when cancelled. */
function fileStream(file: FileHandle, start: number, length: number, done: (end: DownloadEnd) => void, whole: boolean) {
  let position = start;
  let remaining = length;
  let closed = false;
  const finish = async (completed: boolean) => {
    if (closed) return;
    closed = true;
    await file.close().catch(() => {});
    done({ sent: length - remaining, whole: whole && completed });
  };
  return new ReadableStream<Uint8Array>({
    type: 'bytes',
    async pull(controller) {
      try {
        if (remaining <= 0) {
          controller.close();
          await finish(true);
          return;
        }
        const buffer = new Uint8Array(Math.min(CHUNK, remaining));
        const { bytesRead } = await file.read(buffer, 0, buffer.byteLength, position);
        if (bytesRead === 0) throw new Error('the stored file is shorter than its record');
        position += bytesRead;
        remaining -= bytesRead;
        controller.enqueue(bytesRead === buffer.byteLength ? buffer : buffer.subarray(0, bytesRead));
        if (remaining <= 0) {
          controller.close();
          await finish(true);
        }
      } catch (err) {
        controller.error(err);
        await finish(false);
      }
    },
    async cancel() {
      await finish(false);
    },
  });
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

/** The answer to `GET /objects/{id}/content` for a row that has content. */
export async function serveContent(
  deps: Deps,
  row: ObjectRow,
  request: Request,
  done: (end: DownloadEnd) => void = () => {},
): Promise<Response> {
  const path = contentPath(deps, row);
  if (path === null || row.status !== 'uploaded' || row.sha256 === null || row.size === null) {
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
  const whole = start === 0 && length === size;
  const status = range ? 206 : 200;
  if (length <= SMALL) {
    // A small answer (a player's range read) is read at once, without the thread pool's round trips.
    const buffer = readSmall(path, start, length, row.id);
    done({ sent: length, whole });
    return new Response(buffer, { status, headers });
  }
  let file: FileHandle;
  try {
    file = await open(path, 'r');
  } catch {
    throw notFound('object content', row.id);
  }
  return new Response(fileStream(file, start, length, done, whole), { status, headers });
}
