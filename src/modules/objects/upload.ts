/**
 * Uploading an object's content (§12 rules 1–5).
 *
 * Everything that can refuse an upload is judged before the first byte is read: the credential (the
 * route's auth), `Content-Length` (required: 400), `media.maxUploadBytes` (413), the free space left
 * after it against `media.minFreeBytes` and the stored total against `media.quotaBytes` (507), and
 * one upload per object (409). Bun then writes the body into a part file under `media/.parts` as it
 * arrives while MD5 and SHA-256 are computed on another thread (hashing.ts), so memory stays flat
 * whatever the size (`receive`). A body shorter or longer than declared, a client that goes away (400),
 * a checksum that does not match (`Content-MD5`, `x-checksum-sha256`, or the `sha256` given at create:
 * 400 at `/sha256`) or a full disk (507) removes the part file and changes nothing. Otherwise the file
 * is flushed, its type and `mediaInfo` read from its bytes (probe/), and in one unit of work it is
 * renamed into place under a name of its own (`<_id>-<sha256>`) and the row moves to it; the previous
 * version's file is retired after the commit (removed after a grace, files.ts). Until then every
 * download reads the old bytes whole.
 */
import { renameSync } from 'node:fs';
import { rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { and, eq, ne } from 'drizzle-orm';
import type { Principal } from '../../core/principal';
import { getSettingGroup } from '../../core/settings';
import { randomId } from '../../crypto';
import type { ObjectMediaMeta } from '../../db/schema';
import { objects } from '../../db/schema';
import type { Deps } from '../../deps';
import { syncDir } from '../../files';
import { tooLarge } from '../../http/body';
import { AppError, badRequest, bodyCutOff, conflict, invalid, isDiskFull } from '../../http/errors';
import { transact } from '../../realtime/emit';
import { bucketDir, contentFileName, partsDir, removeFile, retireFile } from './files';
import { type Digests, startSink } from './hashing';
import type { ObjectRow } from './mapper';
import { fileSource, type Probe, probe } from './probe';
import { emitObject, mediaFreeBytes, storedBytes } from './service';

/** Content received whole into a part file, not yet part of any object. */
export interface ReceivedContent {
  part: string;
  size: number;
  md5: string;
  sha256: string;
  probe: Probe;
}

const insufficientStorage = (message: string): AppError => new AppError('insufficient_storage', message);

/** The checksums a client sent in headers, as lower-case hex (a base64 or hex `Content-MD5`). */
function headerChecksums(request: Request): { md5: string | null; sha256: string | null } {
  const hexOf = (raw: string | null, hexLength: number): string | null => {
    if (raw === null) return null;
    const text = raw.trim();
    if (new RegExp(`^[0-9a-fA-F]{${hexLength}}$`).test(text)) return text.toLowerCase();
    const bytes = Buffer.from(text, 'base64');
    if (bytes.length * 2 === hexLength && /^[A-Za-z0-9+/]+=*$/.test(text)) return bytes.toString('hex');
    throw invalid('/sha256', 'checksum header is neither hexadecimal nor base64 of the right length');
  };
  return {
    md5: hexOf(request.headers.get('content-md5'), 32),
    sha256: hexOf(request.headers.get('x-checksum-sha256'), 64),
  };
}

/** The declared length of an upload, judged against the size cap, free space and quota before reading. */
function admit(deps: Deps, request: Request, replacing: ObjectRow | null): number {
  const raw = request.headers.get('content-length');
  if (raw === null || !/^[0-9]{1,16}$/.test(raw.trim())) {
    throw badRequest('Content-Length is required: send the content with its length, not chunked');
  }
  const length = Number(raw.trim());
  const media = getSettingGroup(deps, 'media');
  if (length > media.maxUploadBytes) throw tooLarge(media.maxUploadBytes);
  if (mediaFreeBytes(deps) - length < media.minFreeBytes) {
    throw insufficientStorage('storing this would leave less free disk space than media.minFreeBytes');
  }
  if (media.quotaBytes !== null && storedBytes(deps) - (replacing?.size ?? 0) + length > media.quotaBytes) {
    throw insufficientStorage('storing this would pass the media quota (media.quotaBytes)');
  }
  return length;
}

/**
 * Writes the body into a part file and hashes it (hashing.ts: Bun writes it natively into a pipe to
 * the upload thread, so no chunk reaches JavaScript). Throws (the part file removed) when the body
 * is cut off, longer than declared, the disk fills, or a checksum does not match.
 */
async function receive(deps: Deps, request: Request, length: number, expectedSha256: string | null) {
  const expected = headerChecksums(request);
  const part = join(partsDir(deps), `${randomId()}.part`);
  await writeFile(part, new Uint8Array(0), { flag: 'wx', mode: 0o640 });
  try {
    let digests: Digests;
    const sink = await startSink(deps.objects.hashWorkerUrl, part, (reason) =>
      deps.log.warn(
        { reason },
        'the upload thread cannot start; this upload is written and hashed on the request thread',
      ),
    );
    try {
      let size: number;
      try {
        size = request.body ? await Bun.write(sink.destination, request) : 0;
      } catch (err) {
        // A broken pipe is the thread stopping first (a full disk): its reason is the one to give.
        throw (await sink.failure()) ?? err;
      }
      if (size > length) throw badRequest('the body is longer than its Content-Length');
      if (size !== length) throw badRequest(`the body ended after ${size} of ${length} bytes; nothing was stored`);
      digests = await sink.finish(size);
    } finally {
      sink.close();
    }
    for (const [want, got] of [
      [expected.md5, digests.md5],
      [expected.sha256, digests.sha256],
      [expectedSha256, digests.sha256],
    ] as const) {
      if (want !== null && want !== got) throw invalid('/sha256', 'checksum mismatch; nothing was stored');
    }
    return { part, size: length, ...digests, probe: await probe(fileSource(part)) } satisfies ReceivedContent;
  } catch (err) {
    await rm(part, { force: true });
    if (isDiskFull(err)) throw insufficientStorage('the disk filled during the upload; nothing was stored');
    throw bodyCutOff(err) ?? err;
  }
}

/** What the row records of the content's kind (§12 `metadata` keys the server fills). */
export function mediaMetaOf(p: Probe): ObjectMediaMeta {
  return {
    type: p.type,
    subtype: p.subtype,
    extension: p.extension,
    ...(p.duration === undefined ? {} : { duration: p.duration }),
    ...(p.mediaInfo === undefined ? {} : { mediaInfo: p.mediaInfo }),
  };
}

/**
 * Moves received content into an object inside the open unit: renamed into place (undone by the
 * unit's undo), the row pointed at it, `object.uploaded` emitted; the old file is retired after the commit.
 */
export function attachContent(deps: Deps, principal: Principal, row: ObjectRow, content: ReceivedContent): ObjectRow {
  const dir = bucketDir(deps, row.bucket);
  const file = contentFileName(row.id, content.sha256);
  const path = join(dir, file);
  const previous = row.file;
  return transact(deps, (unit) => {
    const media = mediaMetaOf(content.probe);
    const stored = deps.db
      .update(objects)
      .set({
        status: 'uploaded',
        file,
        contentType: content.probe.contentType,
        size: content.size,
        md5: content.md5,
        sha256: content.sha256,
        expectedSha256: null,
        media,
        mediaType: media.type,
        duration: media.duration ?? null,
        updatedAt: deps.clock.now(),
      })
      .where(and(eq(objects.id, row.id), ne(objects.status, 'deleted')))
      .returning()
      .get();
    // Purged or trashed while the bytes were arriving: nothing to attach them to.
    if (!stored) throw conflict(`object ${row.id} was deleted during the upload; nothing was stored`);
    emitObject(deps, principal, 'uploaded', stored, ['status', 'sha256', 'objectSize', 'metadata'], {
      replaced: previous !== null,
    });
    // Renamed last, so nothing above can fail after the file is in place; the same content again
    // keeps its name (the rename then replaces identical bytes, and nothing is removed).
    renameSync(content.part, path);
    syncDir(dir);
    if (previous !== file) unit.onUndo(() => removeFile(path));
    if (previous !== null && previous !== file) unit.afterCommit(() => retireFile(deps, join(dir, previous)));
    return stored;
  });
}

/** Runs one upload of an object's content, refusing a second at the same time (409). */
export async function withUploadSlot<T>(deps: Deps, id: number, run: () => Promise<T>): Promise<T> {
  if (deps.objects.uploading.has(id)) throw conflict(`an upload of object ${id} is already running`);
  deps.objects.uploading.add(id);
  try {
    return await run();
  } finally {
    deps.objects.uploading.delete(id);
  }
}

/** Admits and receives an upload for `row` (null: a new object), leaving it in a part file. */
export async function receiveUpload(deps: Deps, request: Request, row: ObjectRow | null): Promise<ReceivedContent> {
  if (row?.status === 'deleted') throw conflict(`object ${row.id} is in the trash; restore it before uploading`);
  const length = admit(deps, request, row);
  return receive(deps, request, length, row?.expectedSha256 ?? null);
}

/** Removes a part file that will not be attached (its object's write failed). */
export async function discard(content: ReceivedContent): Promise<void> {
  await rm(content.part, { force: true });
}
