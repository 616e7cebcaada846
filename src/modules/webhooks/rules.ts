/**
 * The field rules of §10 beyond the schemas: the URL and its address, event names (§21), extra
 * headers and a client's own secret.
 */
import type { Deps } from '../../deps';
import { longerThan } from '../../http/characters';
import { invalid } from '../../http/errors';
import { pinnedTarget } from '../../http/net';
import { EVENT_TYPES, topicOfEvent } from '../../realtime/topics';
import { SECRET_PREFIX } from './attempt';

const KNOWN_EVENTS = new Set(EVENT_TYPES);

/** An event name a webhook may listen to: `*`, `<noun>.*`, or an event of §21. */
export function isKnownEventName(name: string): boolean {
  if (name === '*' || KNOWN_EVENTS.has(name)) return true;
  return name.endsWith('.*') && name.length > 2 && topicOfEvent(name.slice(0, -2)) !== null;
}

/** The events list as stored: checked, duplicates dropped; `["*"]` when absent. */
export function checkEvents(events: readonly string[] | undefined): string[] {
  if (events === undefined) return ['*'];
  events.forEach((name, i) => {
    if (!isKnownEventName(name)) throw invalid(`/events/${i}`, 'is not a known event name');
  });
  return [...new Set(events)];
}

const URL_RULE = 'must be an absolute http or https URL without a user:password part';
const ADDRESS_RULE = 'names an address webhooks may not reach (see allowPrivateNetwork)';

/** Parses the URL by the §10 rule (length is the schema's). */
export function checkUrl(text: string): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw invalid('/url', URL_RULE);
  }
  if ((url.protocol !== 'http:' && url.protocol !== 'https:') || url.username !== '' || url.password !== '') {
    throw invalid('/url', URL_RULE);
  }
  if (url.hostname === '') throw invalid('/url', URL_RULE);
  return url;
}

/**
 * Refuses a URL whose literal address, or any address its name resolves to now, is refused for this
 * webhook (rule 6). A name that does not resolve is accepted: the appliance may be offline now.
 */
export async function checkTarget(deps: Deps, url: URL, allowPrivateNetwork: boolean): Promise<void> {
  const target = await pinnedTarget(url.toString(), allowPrivateNetwork, deps.webhookIo.lookup);
  if ('refused' in target && target.refused === 'target_refused') throw invalid('/url', ADDRESS_RULE);
}

const MAX_HEADERS = 10;
const MAX_HEADER_VALUE = 1024;
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const RESERVED = /^(webhook-.*|content-type|host)$/i;

function pointer(name: string): string {
  return `/headers/${name.replaceAll('~', '~0').replaceAll('/', '~1')}`;
}

/**
 * Merges a headers write into the stored ones (a value of null removes that header) and checks the
 * result: at most 10, valid names not set by the platform, values at most 1024 characters on one line.
 */
export function mergeHeaders(
  current: Record<string, string>,
  patch: Record<string, string | null>,
): Record<string, string> {
  const merged: Record<string, string> = {};
  const lower = new Map(Object.keys(current).map((k) => [k.toLowerCase(), k]));
  for (const [name, value] of Object.entries(current)) merged[name] = value;
  for (const [name, value] of Object.entries(patch)) {
    if (!TOKEN.test(name)) throw invalid(pointer(name), 'is not a valid header name');
    if (RESERVED.test(name)) throw invalid(pointer(name), 'is set by the platform and may not be given');
    const existing = lower.get(name.toLowerCase());
    if (existing !== undefined) delete merged[existing];
    if (value === null) continue;
    if (longerThan(value, MAX_HEADER_VALUE) || /[\r\n\0]/.test(value)) {
      throw invalid(pointer(name), `must be at most ${MAX_HEADER_VALUE} characters on one line`);
    }
    merged[name] = value;
    lower.set(name.toLowerCase(), name);
  }
  if (Object.keys(merged).length > MAX_HEADERS) throw invalid('/headers', `must have at most ${MAX_HEADERS} entries`);
  return merged;
}

const SECRET_RULE = 'must be whsec_ followed by the base64 of 24 to 64 bytes';

/** A client's own secret, checked; or a new one of 32 random bytes. */
export function secretOf(given: string | undefined): string {
  if (given === undefined) {
    return SECRET_PREFIX + Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString('base64');
  }
  const body = given.startsWith(SECRET_PREFIX) ? given.slice(SECRET_PREFIX.length) : '';
  const bytes = /^[A-Za-z0-9+/]+={0,2}$/.test(body) ? Buffer.from(body, 'base64') : Buffer.alloc(0);
  // Canonical base64; the padding may be left out.
  const canonical = bytes.toString('base64').replace(/=+$/, '') === body.replace(/=+$/, '');
  if (bytes.length < 24 || bytes.length > 64 || !canonical) throw invalid('/secret', SECRET_RULE);
  return given;
}
