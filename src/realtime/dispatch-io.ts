/**
 * What webhook delivery needs from the outside world, per daemon (`deps.webhookIo`), so tests
 * replace it: the HTTP client, name resolution and the jitter's random source. Imports no Deps, so
 * deps.ts can name it.
 */
import { resolveAll } from '../http/net';

export interface WebhookIo {
  fetch: (url: string, init: RequestInit) => Promise<Response>;
  /** Every address a host name resolves to. */
  lookup: (host: string) => Promise<string[]>;
  /** Uniform in [0, 1): the ±10 % retry jitter. */
  random: () => number;
}

/** The real network and randomness; shared, never mutated (setWebhookIo replaces a daemon's field). */
export const systemWebhookIo: Readonly<WebhookIo> = {
  fetch: (url, init) => fetch(url, init),
  lookup: resolveAll,
  random: Math.random,
};

/** Replaces parts of a daemon's webhook I/O (tests). */
export function setWebhookIo(deps: { webhookIo: WebhookIo }, io: Partial<WebhookIo>): void {
  deps.webhookIo = { ...deps.webhookIo, ...io };
}
