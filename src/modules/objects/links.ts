/**
 * `_links` of an object (§12), and the signed `get` link: display players are often browsers that
 * cannot send a header, so `get` carries `expires` (Unix seconds, 24 h ahead, fresh at every read) and
 * `signature`, an HMAC-SHA-256 of `<_id>.<expires>` under a key the daemon keeps in its data directory
 * (`link.key`, made on first use, readable by the daemon's user only; a backup's database restored
 * elsewhere gets a new key, so old links stop working there). With a valid signature the content
 * downloads without a credential; a tampered or expired one is a 401.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Deps } from '../../deps';
import { API_PREFIX, selfLink } from '../../http/links';

/** How long a signed link works. */
export const LINK_TTL_MS = 24 * 3600 * 1000;
const KEY_BYTES = 32;

function linkKey(deps: Deps): Uint8Array {
  if (deps.objects.linkKey) return deps.objects.linkKey;
  const path = join(deps.config.dataDir, 'link.key');
  let key: Uint8Array | null = null;
  if (existsSync(path)) {
    const stored = readFileSync(path);
    if (stored.length === KEY_BYTES) key = new Uint8Array(stored);
  }
  if (!key) {
    key = new Uint8Array(randomBytes(KEY_BYTES));
    const part = `${path}.part`;
    writeFileSync(part, key, { mode: 0o600 });
    renameSync(part, path);
  }
  deps.objects.linkKey = key;
  return key;
}

function signatureOf(deps: Deps, id: number, expires: number): string {
  return createHmac('sha256', linkKey(deps)).update(`${id}.${expires}`).digest('base64url');
}

export const contentLink = (id: number): string => `${API_PREFIX}/objects/${id}/content`;

/** The absolute, signed download address of an object, on the origin the request came to. */
export function signedGetLink(deps: Deps, origin: string, id: number): string {
  const expires = Math.floor((deps.clock.now() + LINK_TTL_MS) / 1000);
  return `${origin}${contentLink(id)}?expires=${expires}&signature=${signatureOf(deps, id, expires)}`;
}

/** Whether `expires`/`signature` from a download's query were made by this daemon for this object and still hold. */
export function validSignature(deps: Deps, id: number, expires: string, signature: string): boolean {
  if (!/^[0-9]{1,12}$/.test(expires)) return false;
  const seconds = Number(expires);
  if (seconds * 1000 < deps.clock.now()) return false;
  const wanted = Buffer.from(signatureOf(deps, id, seconds));
  const given = Buffer.from(signature);
  return wanted.length === given.length && timingSafeEqual(wanted, given);
}

export function objectLinks(deps: Deps, origin: string, id: number) {
  return { self: selfLink('objects', id), object: contentLink(id), get: signedGetLink(deps, origin, id) };
}
