/** Helpers of the object store's tests: records, uploads with their length, content fixtures. */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { CallResult, TestApp } from '../../../tests/helpers/app';
import { mediaDir, RETIRE_GRACE_MS, removeRetired } from './files';

/** A PNG header (signature + IHDR) of the given size; enough for the probe, not for a viewer. */
export function pngBytes(width: number, height: number, padding = 64): Uint8Array {
  const bytes = new Uint8Array(33 + padding);
  bytes.set([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a], 0);
  const view = new DataView(bytes.buffer);
  view.setUint32(8, 13);
  bytes.set([0x49, 0x48, 0x44, 0x52], 12); // IHDR
  view.setUint32(16, width);
  view.setUint32(20, height);
  bytes.set([8, 6, 0, 0, 0], 24);
  for (let i = 33; i < bytes.length; i++) bytes[i] = i % 251;
  return bytes;
}

export const textBytes = (text: string): Uint8Array => new TextEncoder().encode(text);

export function sha256Of(bytes: Uint8Array): string {
  return new Bun.CryptoHasher('sha256').update(bytes).digest('hex');
}

export function md5Of(bytes: Uint8Array): string {
  return new Bun.CryptoHasher('md5').update(bytes).digest('hex');
}

/** `POST /objects/cms-media` as admin; the created record. */
export async function newObject(t: TestApp, name: string, body: Record<string, unknown> = {}) {
  const res = await t.call('POST', '/objects/cms-media', { as: 'admin', body: { name, ...body } });
  if (res.status !== 201) throw new Error(`create ${name}: ${res.status} ${res.text}`);
  return res.body as { _id: number; _links: { self: string; object: string; get: string } } & Record<string, unknown>;
}

/** `PUT <path>` with a raw body and its Content-Length (admin unless other options say). */
export function putBytes(
  t: TestApp,
  path: string,
  bytes: Uint8Array,
  options: {
    headers?: Record<string, string>;
    as?: 'admin' | 'operator' | 'viewer' | 'integration';
    token?: string;
  } = {},
): Promise<CallResult> {
  return t.call('PUT', path, {
    as: options.token ? undefined : (options.as ?? 'admin'),
    token: options.token,
    rawBody: bytes,
    headers: {
      'content-length': String(bytes.byteLength),
      'content-type': 'application/octet-stream',
      ...options.headers,
    },
  });
}

/** Creates an object and uploads `bytes` as its content; the uploaded record. */
export async function uploadedObject(t: TestApp, name: string, bytes: Uint8Array) {
  const { _id } = await newObject(t, name);
  const res = await putBytes(t, `/objects/${_id}/content`, bytes);
  if (res.status !== 200) throw new Error(`upload ${name}: ${res.status} ${res.text}`);
  return res.body as Record<string, unknown> & { _id: number; _links: { get: string } };
}

/** Files under the media directory, as `<dir>/<name>` (part files included). */
export function mediaFiles(t: TestApp): string[] {
  const root = mediaDir(t.deps);
  const out: string[] = [];
  for (const dir of ['.parts', 'cms-media', 'backups', 'branding']) {
    try {
      for (const name of readdirSync(join(root, dir))) out.push(`${dir}/${name}`);
    } catch {
      // not made yet
    }
  }
  return out.sort();
}

/**
 * A request whose body is a stream of `chunks`, then (when `fail` is set) an error: a client that
 * goes away in the middle of an upload. `pulled` counts the chunks the server read.
 */
export function streamingRequest(
  url: string,
  chunks: Uint8Array[],
  options: { declared: number; token: string; fail?: boolean; method?: string },
): { request: Request; pulled: () => number } {
  let index = 0;
  const body = new ReadableStream<Uint8Array>(
    {
      pull(controller) {
        const chunk = chunks[index];
        if (chunk) {
          index++;
          controller.enqueue(chunk);
        } else if (options.fail) controller.error(new Error('client went away'));
        else controller.close();
      },
      // Nothing is pulled before the server reads (a queue of 0), so `pulled` counts what it read.
    },
    { highWaterMark: 0 },
  );
  const request = new Request(`http://localhost/api/v1${url}`, {
    method: options.method ?? 'PUT',
    body,
    headers: { 'content-length': String(options.declared), authorization: `Bearer ${options.token}` },
  });
  return { request, pulled: () => index };
}

/** Lets the grace of retired versions pass and runs the removal the `objects.retire` job makes. */
export function afterGrace(t: TestApp): void {
  t.clock.advance(RETIRE_GRACE_MS);
  removeRetired(t.deps);
}
