/**
 * What webhook delivery needs from the outside world, per daemon, so tests replace it: the HTTP
 * client, name resolution and the jitter's random source.
 */
import type { Deps } from '../deps';
import { resolveAll } from '../http/net';

export interface WebhookIo {
  fetch: (url: string, init: RequestInit) => Promise<Response>;
  /** Every address a host name resolves to. */
  lookup: (host: string) => Promise<string[]>;
  /** Uniform in [0, 1): the ±10 % retry jitter. */
  random: () => number;
}

const systemIo: WebhookIo = {
  fetch: (url, init) => fetch(url, init),
  lookup: resolveAll,
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
