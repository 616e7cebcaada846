/**
 * One delivery attempt (§10 rules 1, 2, 6): resolve the host and check every address, sign the stored
 * body, POST it without following redirects within `timeoutSeconds`, and read at most 1 KiB of the answer.
 * Never throws: every failure is an outcome with an error code.
 */
import { createHmac } from 'node:crypto';
import type { Deps } from '../../deps';
import { pinnedTarget } from '../../http/net';
import type { DeliveryRow, WebhookRow } from './mapper';

export const SECRET_PREFIX = 'whsec_';
const EXCERPT_BYTES = 1024;

export interface AttemptOutcome {
  at: number;
  responseStatus: number | null;
  durationMs: number;
  /** null on success; else target_refused, dns_failed, timeout, connection_failed, redirect or http_status. */
  error: string | null;
  excerpt: string | null;
}

/** `v1,<base64 HMAC-SHA256(secret bytes, id.timestamp.body)>` (Standard Webhooks). */
export function signature(secret: string, id: string, timestamp: number, body: string): string {
  const key = Buffer.from(secret.slice(SECRET_PREFIX.length), 'base64');
  return `v1,${createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64')}`;
}

/** The secrets that sign now: the current one, and the rotated-away one until it expires. */
export function signingSecrets(hook: WebhookRow, now: number): string[] {
  const previous =
    hook.previousSecret !== null && hook.previousSecretExpiresAt !== null && now < hook.previousSecretExpiresAt
      ? [hook.previousSecret]
      : [];
  return [hook.secret, ...previous];
}

/**
 * The request headers of one attempt: the signature headers and content type, which a webhook may
 * not set, and the webhook's own headers; its own User-Agent, if it has one, replaces ours.
 */
export function attemptHeaders(deps: Deps, hook: WebhookRow, delivery: DeliveryRow, now: number) {
  const timestamp = Math.floor(now / 1000);
  const ownAgent = Object.keys(hook.headers).some((name) => name.toLowerCase() === 'user-agent');
  const headers: Record<string, string> = ownAgent ? {} : { 'user-agent': `pms-webhook/${deps.version.version}` };
  return {
    ...headers,
    ...hook.headers,
    'webhook-id': delivery.eventId,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': signingSecrets(hook, now)
      .map((s) => signature(s, delivery.eventId, timestamp, delivery.payload))
      .join(' '),
    'content-type': 'application/json',
  };
}

async function readExcerpt(response: Response): Promise<string | null> {
  const reader = response.body?.getReader();
  if (!reader) return null;
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    while (size < EXCERPT_BYTES) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
      size += value.byteLength;
    }
  } finally {
    reader.cancel().catch(() => {});
  }
  if (size === 0) return null;
  return excerptText(Buffer.concat(chunks).subarray(0, EXCERPT_BYTES));
}

/**
 * The first 1 KiB of an answer as stored text (`responseBodyExcerpt` ≤ 1 KiB: bytes of UTF-8). A
 * character cut at the 1 024th byte is left out: decoded whole it was a U+FFFD the receiver never sent,
 * and the excerpt 1 026 bytes. Bytes that are not UTF-8 (a binary answer) read as U+FFFD, three bytes
 * each, so the text is then cut back, by whole characters, to 1 KiB.
 */
export function excerptText(bytes: Uint8Array): string {
  const text = new TextDecoder().decode(bytes, { stream: true });
  if (text.length * 3 <= EXCERPT_BYTES || Buffer.byteLength(text) <= EXCERPT_BYTES) return text;
  let size = 0;
  let end = 0;
  for (const char of text) {
    size += Buffer.byteLength(char);
    if (size > EXCERPT_BYTES) break;
    end += char.length;
  }
  return text.slice(0, end);
}

function errorOf(err: unknown): string {
  const name = (err as { name?: string } | null)?.name;
  return name === 'TimeoutError' || name === 'AbortError' ? 'timeout' : 'connection_failed';
}

/** Runs one attempt of `delivery` to `hook`. */
export async function performAttempt(deps: Deps, hook: WebhookRow, delivery: DeliveryRow): Promise<AttemptOutcome> {
  const at = deps.clock.now();
  const started = deps.clock.monotonic();
  const done = (responseStatus: number | null, error: string | null, excerpt: string | null): AttemptOutcome => ({
    at,
    responseStatus,
    durationMs: Math.round(deps.clock.monotonic() - started),
    error,
    excerpt,
  });
  // Rule 6 before every attempt: every address the name gives now, and the request pinned to one.
  const target = await pinnedTarget(hook.url, hook.allowPrivateNetwork, deps.webhookIo.lookup);
  if ('refused' in target) return done(null, target.refused, null);
  const signal = AbortSignal.timeout(hook.timeoutSeconds * 1000);
  const headers: Record<string, string> = attemptHeaders(deps, hook, delivery, at);
  if (target.host !== undefined) headers.host = target.host;
  try {
    const response = await deps.webhookIo.fetch(target.url, {
      method: 'POST',
      headers,
      body: delivery.payload,
      redirect: 'manual',
      signal,
    });
    const excerpt = await readExcerpt(response);
    const status = response.status;
    if (status >= 200 && status < 300) return done(status, null, excerpt);
    return done(status, status >= 300 && status < 400 ? 'redirect' : 'http_status', excerpt);
  } catch (err) {
    return done(null, signal.aborted ? 'timeout' : errorOf(err), null);
  }
}
