/**
 * Where a webhook may deliver (§10 rule 6): link-local, multicast, unspecified (and the broadcast
 * address) are always refused; loopback, this host's own addresses and the private ranges only with
 * `allowPrivateNetwork`. Applied to the literal address of a URL, to what its name resolves to when
 * the webhook is written, and again before every attempt.
 */
import { isIP } from 'node:net';
import { networkInterfaces } from 'node:os';
import { type Cidr, cidrContains, parseCidr } from '../http/net';

function cidrs(list: readonly string[]): Cidr[] {
  return list.map((text) => {
    const cidr = parseCidr(text);
    if (!cidr) throw new Error(`bad built-in network ${text}`);
    return cidr;
  });
}

const ALWAYS_REFUSED = cidrs([
  '169.254.0.0/16',
  'fe80::/10',
  '224.0.0.0/4',
  'ff00::/8',
  '0.0.0.0/8',
  '::/128',
  '255.255.255.255/32',
]);

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

/** Whether an attempt may reach this address. */
export function addressAllowed(address: string, allowPrivateNetwork: boolean): boolean {
  if (ALWAYS_REFUSED.some((c) => cidrContains(c, address))) return false;
  if (allowPrivateNetwork) return true;
  return !PRIVATE.some((c) => cidrContains(c, address)) && !ownHost().some((c) => cidrContains(c, address));
}

/** The host of a URL as an address when it is a literal one (brackets of IPv6 removed), else null. */
export function literalAddress(url: URL): string | null {
  const host = url.hostname.replace(/^\[|\]$/g, '');
  return isIP(host) === 0 ? null : host;
}
