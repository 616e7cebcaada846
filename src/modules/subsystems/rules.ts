/** The field rules of a subsystem body (§0.2, §3), shared by the upsert and the update by `{id}`. */
import type { SubsystemRow } from '../../core/subsystems';
import type { HealthCheck } from '../../db/schema';
import { invalid } from '../../http/errors';
import { checkIpAddress, cleanName, mergeMetadata } from '../../http/fields';
import { addressAllowed, hostAsUrl, literalAddress } from '../../http/net';
import type { SubsystemWrite } from './model';

const MAX_GRACE_SECONDS = 86400;
const CHECK_DEFAULTS = { intervalSeconds: 30, timeoutSeconds: 5 };
export const WRITABLE = [
  'externalId',
  'displayName',
  'description',
  'type',
  'healthEnabled',
  'healthGracePeriod',
  'healthCheck',
  'directMediaPlayback',
  'metadata',
] as const;

/**
 * `healthGracePeriod`: a positive integer of seconds (digits as text too). §3 types it "int seconds",
 * not "int or null", so §0.1's "null clears a nullable field" does not apply, and its bad input line
 * ("0, negative or not an integer → 400 'healthGracePeriod must be greater than 0'") covers `null`:
 * a body with `null` is refused whole and changes nothing. (It once reset the period to the setting
 * default, silently undoing an operator's value.) A stored null still means "follow the setting
 * `health.defaultGracePeriodSeconds`": that is what a subsystem created without the field keeps.
 * The other numbers of the body (`healthCheck.port`, `intervalSeconds`, `timeoutSeconds`) are
 * schema integers, so their `null` is a 400 of the schema already.
 */
function gracePeriodOf(value: unknown): number {
  const n = typeof value === 'string' && /^[0-9]{1,9}$/.test(value) ? Number(value) : value;
  if (typeof n !== 'number' || !Number.isInteger(n) || n <= 0) {
    throw invalid('/healthGracePeriod', 'must be greater than 0');
  }
  if (n > MAX_GRACE_SECONDS) throw invalid('/healthGracePeriod', `must be at most ${MAX_GRACE_SECONDS}`);
  return n;
}

function isHttpUrl(text: string): boolean {
  if (!URL.canParse(text)) return false;
  const { protocol } = new URL(text);
  return protocol === 'http:' || protocol === 'https:';
}

const REFUSED_ADDRESS = 'names a link-local, multicast, broadcast or unspecified address, which is never checked';

/**
 * A literal address the check names must pass the daemon's address policy (http/net.ts) with the
 * private ranges and loopback allowed: watching LAN and on-box systems is what health checks are for.
 * A tcp host is read as a URL host, so the other spellings of an IPv4 address (`2852039166`,
 * `0xa9.254.169.254`) are caught as well. A name is resolved and checked at every poll (health-checks.ts).
 */
function checkTargetAddress(url: URL | null, path: string): void {
  const address = url === null ? null : literalAddress(url);
  if (address !== null && !addressAllowed(address, true)) throw invalid(path, REFUSED_ADDRESS);
}

/** Keeps only the keys the mode uses, with the interval and timeout defaults filled in for polling modes. */
function healthCheckOf(check: HealthCheck): HealthCheck {
  if (check.mode === 'heartbeat') return { mode: 'heartbeat' };
  const timing = {
    intervalSeconds: check.intervalSeconds ?? CHECK_DEFAULTS.intervalSeconds,
    timeoutSeconds: check.timeoutSeconds ?? CHECK_DEFAULTS.timeoutSeconds,
  };
  if (check.mode === 'http') {
    if (check.url === undefined) throw invalid('/healthCheck/url', 'is required when mode is http');
    if (!isHttpUrl(check.url)) throw invalid('/healthCheck/url', 'must be an absolute http or https URL');
    checkTargetAddress(new URL(check.url), '/healthCheck/url');
    return { mode: 'http', url: check.url, ...timing };
  }
  if (check.host === undefined) throw invalid('/healthCheck/host', 'is required when mode is tcp');
  if (check.port === undefined) throw invalid('/healthCheck/port', 'is required when mode is tcp');
  checkTargetAddress(hostAsUrl(check.host), '/healthCheck/host');
  return { mode: 'tcp', host: check.host, port: check.port, ...timing };
}

/** The merged metadata (§0.2 rules) whose `ip_address`, when present, must be an IP address (§3). */
function metadataOf(current: Record<string, unknown>, patch: Record<string, unknown>): Record<string, unknown> {
  const merged = mergeMetadata(current, patch);
  checkIpAddress(merged);
  return merged;
}

/** The row values a body sets, checked; absent fields are left out (they keep their value). */
export function valuesOf(body: SubsystemWrite, current: SubsystemRow | undefined): Partial<SubsystemRow> {
  const values: Partial<SubsystemRow> = {};
  if (body.externalId !== undefined) values.externalId = body.externalId;
  if (body.displayName !== undefined) values.displayName = cleanName(body.displayName);
  if (body.description !== undefined) values.description = body.description;
  if (body.type !== undefined) values.type = body.type;
  if (body.healthEnabled !== undefined) values.healthEnabled = body.healthEnabled;
  if (body.healthGracePeriod !== undefined) values.healthGracePeriod = gracePeriodOf(body.healthGracePeriod);
  if (body.healthCheck !== undefined) values.healthCheck = healthCheckOf(body.healthCheck);
  if (body.directMediaPlayback !== undefined) values.directMediaPlayback = body.directMediaPlayback;
  if (body.metadata !== undefined) values.metadata = metadataOf(current?.metadata ?? {}, body.metadata);
  return values;
}
