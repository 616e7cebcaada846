/**
 * Network addresses: CIDR parsing and matching (IPv4, IPv6, v4-mapped v6) for the trusted-network
 * rule, and the one address policy for where the daemon itself connects to (webhooks §10 rule 6,
 * subsystem health checks §3 rule 7): `addressAllowed`.
 */
import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { networkInterfaces } from 'node:os';

export interface Cidr {
  /** 16 bytes; IPv4 is held as v4-mapped IPv6 so one comparison serves both. */
  bytes: Uint8Array;
  prefix: number;
}

function v4Bytes(text: string): number[] | null {
  const parts = text.split('.');
  if (parts.length !== 4) return null;
  const out: number[] = [];
  for (const p of parts) {
    if (!/^\d{1,3}$/.test(p)) return null;
    const n = Number(p);
    if (n > 255) return null;
    out.push(n);
  }
  return out;
}

/** The 16-byte form of an IPv4 or IPv6 address, or null when it is not one. */
export function addressBytes(address: string): Uint8Array | null {
  const text = address.replace(/^\[|\]$/g, '').replace(/%.*$/, '');
  const kind = isIP(text);
  if (kind === 4) {
    const v4 = v4Bytes(text);
    return v4 ? Uint8Array.from([0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, ...v4]) : null;
  }
  if (kind !== 6) return null;
  let head = text;
  let tail4: number[] = [];
  const lastColon = text.lastIndexOf(':');
  if (text.slice(lastColon + 1).includes('.')) {
    const v4 = v4Bytes(text.slice(lastColon + 1));
    if (!v4) return null;
    tail4 = v4;
    head = `${text.slice(0, lastColon)}:0:0`;
  }
  const [left = '', right] = head.split('::');
  const l = left ? left.split(':') : [];
  const r = right !== undefined && right !== '' ? right.split(':') : [];
  const groups = right === undefined ? l : [...l, ...Array(8 - l.length - r.length).fill('0'), ...r];
  if (groups.length !== 8) return null;
  const out = new Uint8Array(16);
  groups.forEach((g, i) => {
    const n = Number.parseInt(g, 16);
    out[i * 2] = n >> 8;
    out[i * 2 + 1] = n & 0xff;
  });
  if (tail4.length === 4) out.set(tail4, 12);
  return out;
}

/** Parses `a.b.c.d/n`, `x::y/n` or a bare address (a host route); null when malformed. */
export function parseCidr(text: string): Cidr | null {
  const [addr = '', prefixText, extra] = text.trim().split('/');
  if (extra !== undefined) return null;
  const bytes = addressBytes(addr);
  if (!bytes) return null;
  const isV4 = isIP(addr) === 4;
  const max = isV4 ? 32 : 128;
  if (prefixText !== undefined && !/^\d{1,3}$/.test(prefixText)) return null;
  const prefix = prefixText === undefined ? max : Number(prefixText);
  if (prefix > max) return null;
  return { bytes, prefix: isV4 ? prefix + 96 : prefix };
}

/** Parsed peer addresses: the same few clients call again and again (ingest), so parse each once. */
const parsedAddresses = new Map<string, Uint8Array | null>();
const MAX_PARSED = 4096;

function cachedAddressBytes(address: string): Uint8Array | null {
  let bytes = parsedAddresses.get(address);
  if (bytes === undefined) {
    if (parsedAddresses.size >= MAX_PARSED) parsedAddresses.clear();
    bytes = addressBytes(address);
    parsedAddresses.set(address, bytes);
  }
  return bytes;
}

/** True when the address lies inside the network. */
export function cidrContains(cidr: Cidr, address: string): boolean {
  const bytes = cachedAddressBytes(address);
  if (!bytes) return false;
  let bits = cidr.prefix;
  for (let i = 0; i < 16 && bits > 0; i++, bits -= 8) {
    const mask = bits >= 8 ? 0xff : (0xff << (8 - bits)) & 0xff;
    if (((bytes[i] ?? 0) & mask) !== ((cidr.bytes[i] ?? 0) & mask)) return false;
  }
  return true;
}

function cidrs(list: readonly string[]): Cidr[] {
  return list.map((text) => {
    const cidr = parseCidr(text);
    if (!cidr) throw new Error(`bad built-in network ${text}`);
    return cidr;
  });
}

/** Link-local (cloud metadata lives there), multicast, unspecified and broadcast: never a target. */
const ALWAYS_REFUSED = cidrs([
  '169.254.0.0/16',
  'fe80::/10',
  '224.0.0.0/4',
  'ff00::/8',
  '0.0.0.0/8',
  '::/128',
  '255.255.255.255/32',
]);

/** Loopback and the private ranges: reachable only where the caller opts in (or its purpose is the LAN). */
const PRIVATE = cidrs([
  '127.0.0.0/8',
  '::1/128',
  '10.0.0.0/8',
  '172.16.0.0/12',
  '192.168.0.0/16',
  '100.64.0.0/10',
  'fc00::/7',
]);

let ownAddresses: Cidr[] | null = null;

/** This host's interface addresses, read once. */
function ownHost(): Cidr[] {
  if (ownAddresses === null) {
    const list: string[] = [];
    for (const infos of Object.values(networkInterfaces())) {
      for (const info of infos ?? []) list.push(info.address.replace(/%.*$/, ''));
    }
    ownAddresses = list.map((a) => parseCidr(a)).filter((c): c is Cidr => c !== null);
  }
  return ownAddresses;
}

/**
 * Whether the daemon may connect to this address. Link-local, multicast, unspecified and broadcast
 * never; loopback, this host's own addresses and the private ranges only with `allowPrivateNetwork`
 * (a webhook's opt-in; health checks always pass true, watching LAN and on-box systems is their
 * purpose). Anything that is not an address is refused.
 */
export function addressAllowed(address: string, allowPrivateNetwork: boolean): boolean {
  if (addressBytes(address) === null) return false;
  if (ALWAYS_REFUSED.some((c) => cidrContains(c, address))) return false;
  if (allowPrivateNetwork) return true;
  return !PRIVATE.some((c) => cidrContains(c, address)) && !ownHost().some((c) => cidrContains(c, address));
}

/** The host of a URL as an address when it is a literal one (brackets of IPv6 removed), else null. */
export function literalAddress(url: URL): string | null {
  const host = url.hostname.replace(/^\[|\]$/g, '');
  return isIP(host) === 0 ? null : host;
}

/**
 * Every address a host name resolves to now: `/etc/hosts`, then the DNS servers of
 * `/etc/resolv.conf`, through c-ares on the event loop. Not `node:dns` lookup for ordinary names: it
 * runs getaddrinfo on the thread pool that the WAL sync (db/durability.ts) and password hashing share,
 * and a DNS server that does not answer (an appliance with no way out, a webhook to a cloud name) held
 * two of its threads for 20 s a look-up, so every acknowledged write with them (bench/RESULTS.md, "Hot
 * paths, session 16"). Multicast DNS names (`.local`, RFC 6762) only the system resolver knows
 * (nss-mdns, when installed): those still go through it.
 */
export async function resolveAll(host: string): Promise<string[]> {
  if (/\.local\.?$/i.test(host)) return (await lookup(host, { all: true })).map((a) => a.address);
  return (await Bun.dns.lookup(host, { backend: 'c-ares' })).map((a) => a.address);
}

/** A host as the host of a URL (an IPv6 address in brackets), so a tcp target is read like a URL's. */
export function hostAsUrl(host: string): URL | null {
  const text = `http://${host.includes(':') && !host.startsWith('[') ? `[${host}]` : host}/`;
  return URL.canParse(text) ? new URL(text) : null;
}

/** Where a connection may go: refused, or the checked address and what to send to reach it. */
export type PinnedTarget =
  | { refused: 'dns_failed' | 'target_refused' }
  | { address: string; url: string; host?: string };

/**
 * Resolves a target URL's host (a literal address stands for itself) and applies `addressAllowed`
 * to every address it gives now. A plain-http name is then reached at the first checked address
 * with the name in the Host header, so a second lookup by the HTTP client cannot lead elsewhere (DNS
 * rebinding); https keeps the name for TLS, whose certificate check binds it. Webhook attempts and
 * subsystem health checks both connect through this.
 */
export async function pinnedTarget(
  text: string,
  allowPrivateNetwork: boolean,
  lookup: (host: string) => Promise<string[]>,
): Promise<PinnedTarget> {
  const url = new URL(text);
  const literal = literalAddress(url);
  let addresses: string[];
  try {
    addresses = literal === null ? await lookup(url.hostname) : [literal];
  } catch {
    return { refused: 'dns_failed' };
  }
  const address = addresses[0];
  if (address === undefined) return { refused: 'dns_failed' };
  if (!addresses.every((a) => addressAllowed(a, allowPrivateNetwork))) return { refused: 'target_refused' };
  if (literal !== null || url.protocol !== 'http:') return { address, url: text };
  const host = url.host;
  url.hostname = isIP(address) === 6 ? `[${address}]` : address;
  return { address, url: url.toString(), host };
}
