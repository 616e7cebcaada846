/**
 * Refusals people would not otherwise see (issue "field clients", item 5): field drivers send no
 * credential and never `auth`, and read no error — a `subscriptions.add` without an `id` gets no
 * answer at all, and a `POST /logs` refused with 401 is simply lost. When such a request comes from
 * an address outside the trusted networks, the platform says so where people look: a `security`
 * warning in the log and a notification (key `untrusted-client:<address>`) naming the address and
 * the setting that trusts its network. At most once an hour per address (`deps.signInThrottle
 * .refusalsShown`, in memory, on the monotonic clock: an hour of elapsed time whatever the wall clock
 * does), so a client retrying every second costs one line, not a flood.
 */
import { writePlatformLog } from '../../core/platform-log';
import type { Deps } from '../../deps';
import { raiseNotification } from '../notifications/show';

const HOUR_MS = 3_600_000;
/** Addresses remembered at most; beyond that the oldest is forgotten (and may be shown again). */
const MAX_ADDRESSES = 4096;

/** Which door refused and what was asked, for the message. */
export interface Refusal {
  door: 'HTTP' | 'TCP push';
  what: string;
}

/** Makes the refusal of a request without a credential from `address` visible, at most hourly. */
export function showUntrustedRefusal(deps: Deps, address: string | null, refusal: Refusal): void {
  if (address === null) return;
  const shown = deps.signInThrottle.refusalsShown;
  const now = deps.clock.monotonic();
  const last = shown.get(address);
  if (last !== undefined && now - last < HOUR_MS) return;
  shown.delete(address);
  if (shown.size >= MAX_ADDRESSES) {
    const oldest = shown.keys().next().value;
    if (oldest !== undefined) shown.delete(oldest);
  }
  shown.set(address, now);
  const how =
    'trust its network in the setting auth.trustedNetworks (or the environment variable PMS_TRUSTED_NETWORKS), ' +
    'or give the client an integration token';
  const value = `${refusal.door} ${refusal.what} from ${address} was refused: no credential, and ${address} is not on a trusted network; ${how}`;
  try {
    writePlatformLog(deps, { category: 'security', key: 'auth.untrusted_refused', value, severity: 'warning' });
    raiseNotification(deps, {
      key: `untrusted-client:${address}`,
      title: `A client at ${address} is refused: no credential, untrusted network`,
      message: value,
      severity: 'warning',
    });
  } catch (err) {
    // Making it visible must never turn the refusal into another error.
    deps.log.warn({ err, address }, 'could not record a refused untrusted client');
  }
}
