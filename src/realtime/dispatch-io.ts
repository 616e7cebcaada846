/**
 * What webhook delivery needs from the outside world, per daemon, so tests replace it: the HTTP
 * client, name resolution and the jitter's random source.
 */
import { lookup } from 'node:dns/promises';
import type { Deps } from '../deps';
import { literalAddress } from '../http/net';

export interface WebhookIo {
  fetch: (url: string, init: RequestInit) => Promise<Response>;
  /** Every address a host name resolves to. */
  lookup: (host: string) => Promise<string[]>;
  /** Uniform in [0, 1): the ±10 % retry jitter. */
  random: () => number;
}

const systemIo: WebhookIo = {
  fetch: (url, init) => fetch(url, init),
  lookup: async (host) => (await lookup(host, { all: true })).map((a) => a.address),
  random: Math.random,
};

const ios = new WeakMap<Deps, WebhookIo>();

export function webhookIo(deps: Deps): WebhookIo {
  return ios.get(deps) ?? systemIo;
}

/** Replaces parts of a daemon's webhook I/O (tests). */
export function setWebhookIo(deps: Deps, io: Partial<WebhookIo>): void {
  ios.set(deps, { ...webhookIo(deps), ...io });
}

/**
 * The addresses a webhook URL reaches: its literal address, or every address its name resolves to
 * now; null when the name does not resolve.
 */
export async function targetAddresses(deps: Deps, url: URL): Promise<string[] | null> {
  const literal = literalAddress(url);
  if (literal !== null) return [literal];
  try {
    return await webhookIo(deps).lookup(url.hostname);
  } catch {
    return null;
  }
}
