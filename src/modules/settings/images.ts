/**
 * The branding images (§18): logo and background, judged by their bytes (PNG, JPEG or WebP, else
 * 415), capped in size (413 before a byte is read when `Content-Length` says so, and while reading)
 * and in pixels (413), stored under `<dataDir>/branding/<kind>-<sha256>.<ext>`.
 *
 * The body streams into a part file in the same folder (never held whole in memory), which is
 * flushed, judged, renamed to its content name and the folder flushed, all before the unit that points
 * the setting at it; a rolled-back unit removes the new file, a committed one the old file. A power
 * cut thus leaves the old image or the new one whole, and `sweepBranding` removes at start-up what
 * a cut left behind (part files, files no setting names). The same bytes sent again change nothing.
 */
import { mkdirSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { type FileHandle, open, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { Principal } from '../../core/principal';
import { deleteSettingValue, putSettingValue } from '../../core/settings';
import { randomId } from '../../crypto';
import type { Deps } from '../../deps';
import { syncDir } from '../../files';
import { tooLarge } from '../../http/body';
import { AppError, isDiskFull } from '../../http/errors';
import { transact } from '../../realtime/emit';
import { fileSource, probe } from '../objects/probe';
import type { SettingsDocument } from './model';
import {
  commitSettingsChange,
  getSettings,
  IMAGE_KINDS,
  type ImageKind,
  type StoredImage,
  storedImage,
} from './service';

/** §18: logo up to 2 MiB and 4096×4096 px, background up to 10 MiB and 8192×8192 px. */
export const IMAGE_LIMITS: Record<ImageKind, { bytes: number; pixels: number }> = {
  logo: { bytes: 2 * 1024 * 1024, pixels: 4096 },
  background: { bytes: 10 * 1024 * 1024, pixels: 8192 },
};

const ACCEPTED: Record<string, string> = { 'image/png': 'png', 'image/jpeg': 'jpg', 'image/webp': 'webp' };

const notAnImage = () =>
  new AppError('unsupported_media_type', 'the body must be a PNG, JPEG or WebP image (judged by its content)');

export function brandingDir(deps: Deps): string {
  return join(deps.config.dataDir, 'branding');
}

async function writeAll(file: FileHandle, bytes: Uint8Array): Promise<void> {
  let written = 0;
  while (written < bytes.byteLength) {
    const { bytesWritten } = await file.write(bytes, written, bytes.byteLength - written);
    written += bytesWritten;
  }
}

/** Streams the body into a part file under the cap; its size and SHA-256. Throws (the file removed) on 413 or a cut. */
async function receive(
  deps: Deps,
  request: Request,
  cap: number,
): Promise<{ part: string; size: number; sha256: string }> {
  const declared = request.headers.get('content-length');
  if (declared !== null && /^[0-9]+$/.test(declared.trim()) && Number(declared) > cap) throw tooLarge(cap);
  mkdirSync(brandingDir(deps), { recursive: true, mode: 0o750 });
  const part = join(brandingDir(deps), `.${randomId()}.part`);
  const file = await open(part, 'wx', 0o640);
  const hash = new Bun.CryptoHasher('sha256');
  let size = 0;
  try {
    try {
      if (request.body) {
        for await (const chunk of request.body) {
          size += chunk.byteLength;
          if (size > cap) throw tooLarge(cap);
          hash.update(chunk);
          await writeAll(file, chunk);
        }
      }
      await file.sync();
    } finally {
      await file.close();
    }
    return { part, size, sha256: hash.digest('hex') };
  } catch (err) {
    await rm(part, { force: true });
    if (isDiskFull(err))
      throw new AppError('insufficient_storage', 'the disk filled during the upload; nothing was stored');
    throw err;
  }
}

/** What the bytes are, judged by content; 415 unless a readable PNG, JPEG or WebP, 413 past the pixel cap. */
async function judge(kind: ImageKind, part: string, size: number) {
  if (size === 0) throw notAnImage();
  const found = await probe(fileSource(part));
  const ext = ACCEPTED[found.contentType];
  const width = found.mediaInfo?.width ?? 0;
  const height = found.mediaInfo?.height ?? 0;
  if (!ext || width < 1 || height < 1) throw notAnImage();
  const max = IMAGE_LIMITS[kind].pixels;
  if (width > max || height > max) {
    throw new AppError('payload_too_large', `the ${kind} must be at most ${max}×${max} pixels`);
  }
  return { contentType: found.contentType, ext, width, height };
}

/** `PUT/POST /settings/{logo|background}`: stores the image and answers the document. */
export async function putImage(
  deps: Deps,
  principal: Principal,
  kind: ImageKind,
  request: Request,
): Promise<SettingsDocument> {
  const { part, size, sha256 } = await receive(deps, request, IMAGE_LIMITS[kind].bytes);
  let image: StoredImage;
  try {
    const { ext, ...looks } = await judge(kind, part, size);
    image = { ...looks, size, sha256, updatedAt: deps.clock.now(), file: `${kind}-${sha256}.${ext}` };
  } catch (err) {
    await rm(part, { force: true });
    throw err;
  }
  const old = storedImage(deps, kind);
  if (old?.file === image.file) {
    await rm(part, { force: true });
    return getSettings(deps);
  }
  const path = join(brandingDir(deps), image.file);
  renameSync(part, path);
  syncDir(brandingDir(deps));
  const describe = (i: StoredImage | null) =>
    i ? `${i.contentType} ${i.width}×${i.height} ${i.size} B sha256 ${i.sha256.slice(0, 12)}` : 'none';
  try {
    transact(deps, (unit) => {
      unit.onUndo(() => rmSync(path, { force: true }));
      commitSettingsChange(deps, principal, 'updated', [kind], `${kind} ${describe(old)} → ${describe(image)}`, () =>
        putSettingValue(deps, kind, image),
      );
      if (old) unit.afterCommit(() => rmSync(join(brandingDir(deps), old.file), { force: true }));
    });
  } catch (err) {
    rmSync(path, { force: true });
    throw err;
  }
  return getSettings(deps);
}

/** `DELETE /settings/{logo|background}`: 204 also when none was set (then nothing changes). */
export function deleteImage(deps: Deps, principal: Principal, kind: ImageKind): void {
  const old = storedImage(deps, kind);
  if (!old) return;
  transact(deps, (unit) => {
    commitSettingsChange(
      deps,
      principal,
      'updated',
      [kind],
      `${kind} removed (${old.contentType}, ${old.size} B)`,
      () => deleteSettingValue(deps, kind),
    );
    unit.afterCommit(() => rmSync(join(brandingDir(deps), old.file), { force: true }));
  });
}

/** `GET /settings/{logo|background}`: the bytes, with the sha256 as ETag (304 on a matching If-None-Match); 404 when none. */
export function imageResponse(deps: Deps, kind: ImageKind, request: Request): Response {
  const image = storedImage(deps, kind);
  if (!image) throw new AppError('not_found', `no ${kind} is set`);
  const etag = `"${image.sha256}"`;
  const headers = {
    'content-type': image.contentType,
    etag,
    'cache-control': 'no-cache',
    'x-content-type-options': 'nosniff',
  };
  const match = request.headers.get('if-none-match');
  if (match?.split(',').some((m) => m.trim() === etag || m.trim() === '*')) {
    return new Response(null, { status: 304, headers });
  }
  return new Response(Bun.file(join(brandingDir(deps), image.file)), { headers });
}

/** At start-up: removes part files and image files no setting names (what a power cut can leave). */
export function sweepBranding(deps: Deps): number {
  let names: string[];
  try {
    names = readdirSync(brandingDir(deps));
  } catch {
    return 0;
  }
  const kept = new Set(IMAGE_KINDS.map((k) => storedImage(deps, k)?.file).filter(Boolean));
  let removed = 0;
  for (const name of names) {
    if (kept.has(name)) continue;
    rmSync(join(brandingDir(deps), name), { force: true });
    removed += 1;
  }
  return removed;
}
