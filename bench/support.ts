/**
 * What the bench scripts share: a free port, waiting for a server to answer, a webhook receiver and
 * the webhook backlog read from a stopped or running daemon's database.
 */
import { Database } from 'bun:sqlite';

export function freePort(): number {
  const probe = Bun.serve({ port: 0, fetch: () => new Response() });
  const port = probe.port ?? 0;
  probe.stop(true);
  return port;
}

/** Resolves once `url` answers below 500; throws after 30 s. */
export async function waitFor(url: string): Promise<void> {
  for (let i = 0; i < 300; i++) {
    try {
      if ((await fetch(url)).status < 500) return;
    } catch {
      // not listening yet
    }
    await Bun.sleep(100);
  }
  throw new Error(`${url} did not come up`);
}

/** A webhook receiver on 127.0.0.1 answering 204 at once, counting deliveries (any path). */
export function startReceiver() {
  let received = 0;
  const server = Bun.serve({
    port: 0,
    hostname: '127.0.0.1',
    fetch: async (req) => {
      await req.arrayBuffer();
      received += 1;
      return new Response(null, { status: 204 });
    },
  });
  return {
    url: `http://127.0.0.1:${server.port}/hook`,
    received: () => received,
    stop: () => server.stop(true),
  };
}

/** The webhook backlog in a daemon's database: deliveries by status and events still in the writer's outbox rows. */
export function webhookBacklog(path: string): string {
  const db = new Database(path, { readonly: true });
  try {
    const rows = db
      .query<{ status: string; n: number }, []>('SELECT status, count(*) AS n FROM webhook_deliveries GROUP BY status')
      .all();
    // One line per event in an outbox row (a delivery per webhook that wants it).
    const queued =
      db
        .query<{ n: number | null }, []>(
          "SELECT sum(length(events) - length(replace(events, char(10), '')) + 1) AS n FROM webhook_outbox",
        )
        .get()?.n ?? 0;
    return `delivery log ${rows.map((r) => `${r.status} ${r.n}`).join(', ') || 'empty'}; events still in the outbox ${queued}`;
  } finally {
    db.close();
  }
}
