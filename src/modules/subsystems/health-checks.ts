/**
 * Active health checks (§3 rule 7): `http` (an answer below 400) and `tcp` (an accepted connection)
 * within `timeoutSeconds` count as contact, polled every `intervalSeconds` on the monotonic clock.
 * The network side sits behind `HealthProbe` so tests can point it at loopback servers, and polling is
 * driven by `pollDue()` (main calls it every second; tests call it after moving the fake clock).
 */
import { and, eq, inArray, sql } from 'drizzle-orm';
import { subsystems } from '../../db/schema';
import type { Deps } from '../../deps';

export interface HealthProbe {
  http(url: string, timeoutMs: number): Promise<boolean>;
  tcp(host: string, port: number, timeoutMs: number): Promise<boolean>;
}

async function httpProbe(url: string, timeoutMs: number): Promise<boolean> {
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(timeoutMs), redirect: 'manual' });
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
export const networkProbe: HealthProbe = { http: httpProbe, tcp: tcpProbe };

export class HealthCheckPoller {
  /** Monotonic ms each subsystem's next check is due. */
  private readonly nextDue = new Map<number, number>();
  private readonly inFlight = new Set<number>();

  constructor(
    private readonly deps: Deps,
    private readonly probe: HealthProbe = networkProbe,
  ) {}

  /** Starts the checks that are due; resolves once every check started by this call has answered. */
  async pollDue(): Promise<void> {
    const mono = this.deps.clock.monotonic();
    const rows = this.deps.db
      .select({ id: subsystems.id, check: subsystems.healthCheck })
      .from(subsystems)
      .where(
        and(
          eq(subsystems.healthEnabled, true),
          inArray(sql`json_extract(${subsystems.healthCheck}, '$.mode')`, ['http', 'tcp']),
        ),
      )
      .all();
    const polled = new Set(rows.map((r) => r.id));
    for (const id of this.nextDue.keys()) if (!polled.has(id)) this.nextDue.delete(id);
    const running: Promise<void>[] = [];
    for (const { id, check } of rows) {
      const due = this.nextDue.get(id);
      if (this.inFlight.has(id) || (due !== undefined && mono < due)) continue;
      this.nextDue.set(id, mono + (check.intervalSeconds ?? 30) * 1000);
      const timeoutMs = (check.timeoutSeconds ?? 5) * 1000;
      const answer =
        check.mode === 'http'
          ? this.probe.http(check.url ?? '', timeoutMs)
          : this.probe.tcp(check.host ?? '', check.port ?? 0, timeoutMs);
      this.inFlight.add(id);
      running.push(
        answer.then(
          (ok) => {
            this.inFlight.delete(id);
            if (ok) this.deps.health.contact(id);
          },
          () => {
            this.inFlight.delete(id);
          },
        ),
      );
    }
    await Promise.all(running);
  }
}
