/**
 * Active health checks (§3 rule 7): `http` (an answer below 400) and `tcp` (an accepted connection)
 * within `timeoutSeconds` count as contact, polled every `intervalSeconds` on the monotonic clock.
 * The network side sits behind `HealthProbe` so tests can point it at loopback servers, and polling is
 * driven by `pollDue()` (main calls it every second; tests call it after moving the fake clock).
 *
 * Before each check the target's name is resolved and every address it gives must pass the daemon's
 * one address policy (http/net.ts, shared with webhooks) with LAN and loopback allowed: a name that
 * now points at link-local (cloud metadata), multicast, broadcast or unspecified is not connected to.
 * The check then fails with a reason (`target_refused`, `dns_failed`), written once as a warning log
 * entry when a subsystem's reason changes. The connection goes to the checked address (http: with
 * the name as Host), so a second resolution cannot swap it; https keeps the name for its certificate.
 */

import { and, eq, inArray, sql } from 'drizzle-orm';
import { writePlatformLog } from '../../core/platform-log';
import { prepared } from '../../db/prepared';
import { type HealthCheck, subsystems } from '../../db/schema';
import type { Deps } from '../../deps';
import { hostAsUrl, pinnedTarget, resolveAll } from '../../http/net';
import { recordContact } from './health';

export interface HealthProbe {
  /** `host`: the Host header when `url` names the checked address instead of the name. */
  http(url: string, timeoutMs: number, host?: string): Promise<boolean>;
  tcp(host: string, port: number, timeoutMs: number): Promise<boolean>;
  /** Every address a host name resolves to. */
  lookup(host: string): Promise<string[]>;
}

async function httpProbe(url: string, timeoutMs: number, host?: string): Promise<boolean> {
  try {
    const res = await fetch(url, {
      signal: AbortSignal.timeout(timeoutMs),
      redirect: 'manual',
      ...(host === undefined ? {} : { headers: { host } }),
    });
    await res.body?.cancel();
    return res.status < 400;
  } catch {
    return false;
  }
}

function tcpProbe(host: string, port: number, timeoutMs: number): Promise<boolean> {
  return new Promise((resolve) => {
    let settled = false;
    const settle = (ok: boolean) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(ok);
    };
    const timer = setTimeout(() => settle(false), timeoutMs);
    Bun.connect({
      hostname: host,
      port,
      socket: {
        open(socket) {
          settle(true);
          socket.end();
        },
        data() {},
        error() {
          settle(false);
        },
        connectError() {
          settle(false);
        },
      },
    }).catch(() => settle(false));
  });
}

/** The real network. */
export const networkProbe: HealthProbe = {
  http: httpProbe,
  tcp: tcpProbe,
  lookup: resolveAll,
};

/** The URL whose host a check connects to (a tcp host read as a URL's host); null when it is not one. */
function targetUrl(check: HealthCheck): URL | null {
  if (check.mode !== 'http') return hostAsUrl(check.host ?? '');
  const text = check.url ?? '';
  return URL.canParse(text) ? new URL(text) : null;
}

/** One check: resolve, apply the address policy (LAN and loopback allowed), connect to the checked address. */
async function checkOnce(probe: HealthProbe, check: HealthCheck): Promise<true | CheckFailure> {
  const timeoutMs = (check.timeoutSeconds ?? 5) * 1000;
  const url = targetUrl(check);
  if (url === null) return 'target_refused';
  const target = await pinnedTarget(url.toString(), true, probe.lookup);
  if ('refused' in target) return target.refused;
  const ok =
    check.mode === 'tcp'
      ? await probe.tcp(target.address, check.port ?? 0, timeoutMs)
      : await probe.http(target.url, timeoutMs, target.host);
  return ok || 'no_answer';
}

type CheckFailure = 'target_refused' | 'dns_failed' | 'no_answer';

const REFUSAL_TEXT: Record<CheckFailure, string | null> = {
  target_refused: 'names a link-local, multicast, broadcast or unspecified address; not connected',
  dns_failed: 'names a host that does not resolve',
  no_answer: null,
};

export class HealthCheckPoller {
  /** Monotonic ms each subsystem's next check is due. */
  private readonly nextDue = new Map<number, number>();
  private readonly inFlight = new Set<number>();
  /** Each subsystem's last failure reason, so a refusal is logged once, not at every poll. */
  private readonly lastFailure = new Map<number, CheckFailure>();

  constructor(
    private readonly deps: Deps,
    private readonly probe: HealthProbe = networkProbe,
  ) {}

  /** Starts the checks that are due; resolves once every check started by this call has answered. */
  async pollDue(): Promise<void> {
    const mono = this.deps.clock.monotonic();
    // Run every second: prepared once.
    const { pollable } = prepared(this.deps, 'subsystems.health-checks', () => ({
      pollable: this.deps.db
        .select({ id: subsystems.id, externalId: subsystems.externalId, check: subsystems.healthCheck })
        .from(subsystems)
        .where(
          and(
            eq(subsystems.healthEnabled, true),
            inArray(sql`json_extract(${subsystems.healthCheck}, '$.mode')`, ['http', 'tcp']),
          ),
        )
        .prepare(),
    }));
    const rows = pollable.all();
    const polled = new Set(rows.map((r) => r.id));
    for (const id of this.nextDue.keys()) if (!polled.has(id)) this.nextDue.delete(id);
    const running: Promise<void>[] = [];
    for (const { id, externalId, check } of rows) {
      const due = this.nextDue.get(id);
      if (this.inFlight.has(id) || (due !== undefined && mono < due)) continue;
      this.nextDue.set(id, mono + (check.intervalSeconds ?? 30) * 1000);
      this.inFlight.add(id);
      running.push(
        checkOnce(this.probe, check).then(
          (outcome) => {
            this.inFlight.delete(id);
            if (outcome === true) {
              this.lastFailure.delete(id);
              return recordContact(this.deps, id) ?? undefined;
            } else this.failed(id, externalId, check, outcome);
          },
          () => {
            this.inFlight.delete(id);
          },
        ),
      );
    }
    await Promise.all(running);
  }

  private failed(id: number, externalId: string, check: HealthCheck, reason: CheckFailure): void {
    const text = REFUSAL_TEXT[reason];
    if (this.lastFailure.get(id) === reason) return;
    this.lastFailure.set(id, reason);
    if (text === null) return;
    const field = check.mode === 'http' ? 'url' : 'host';
    writePlatformLog(this.deps, {
      category: 'system',
      key: 'subsystem.healthcheck',
      severity: 'warning',
      value: `health check of subsystem ${externalId} not made (${reason}): healthCheck.${field} ${text}`,
      subsystemId: id,
      subsystemExternalId: externalId,
    });
  }
}
