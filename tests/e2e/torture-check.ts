/**
 * What the kill -9 torture checks after each kill: the database file itself (opened read-only while
 * no daemon runs: `PRAGMA integrity_check` and every write acknowledged in any cycle so far), and,
 * after the restart, the same writes of the last cycle as the daemon serves them over HTTP.
 */
import { Database } from 'bun:sqlite';
import { type Acked, type Client, ENTITY_PATH, type EntityTable } from './torture-load';

export interface FileCheck {
  integrity: string;
  /** Acknowledged writes not found, described (empty when none is lost). */
  lost: string[];
  /** Webhook deliveries waiting (pending rows and events still in the outbox rows). */
  pendingDeliveries: number;
}

function editCounter(description: string | undefined): number {
  return Number(/^edit (\d+)$/.exec(description ?? '')?.[1] ?? 0);
}

/** Opens the database read-only (the WAL a killed daemon left is read, never checkpointed) and checks it. */
export function checkFile(path: string, acked: Acked): FileCheck {
  const db = new Database(path, { readonly: true });
  try {
    const integrity = db
      .query<{ integrity_check: string }, []>('PRAGMA integrity_check')
      .all()
      .map((r) => r.integrity_check)
      .join('; ');
    const lost: string[] = [];
    const lastValue = db.query<{ last_value: string }, [number]>('SELECT last_value FROM variables WHERE id = ?');
    // A point is in variable_history once settled, in variable_history_recent until then.
    const history = db.query<{ value: string }, [number]>(
      'SELECT value FROM variable_history WHERE variable_id = ?1 UNION ALL SELECT value FROM variable_history_recent WHERE variable_id = ?1',
    );
    for (const [id, values] of acked.values) {
      const kept = new Set(history.all(id).map((r) => r.value));
      const last = lastValue.get(id)?.last_value;
      if (last !== undefined) kept.add(last);
      for (const value of values) if (!kept.has(value)) lost.push(`variable ${id} value ${value}`);
    }
    for (const [table, ids] of acked.created) {
      const exists = db.query<{ id: number }, [number]>(`SELECT id FROM ${table} WHERE id = ?`);
      for (const id of ids) if (!exists.get(id)) lost.push(`${table} ${id}`);
    }
    const description = db.query<{ description: string }, [number]>(
      'SELECT description FROM schedule_calendars WHERE id = ?',
    );
    for (const [id, n] of acked.edits) {
      const stored = editCounter(description.get(id)?.description);
      if (stored < n) lost.push(`calendar ${id} edit ${n} (stored ${stored})`);
    }
    const pending =
      db.query<{ n: number }, []>("SELECT count(*) AS n FROM webhook_deliveries WHERE status = 'pending'").get()?.n ??
      0;
    const outbox = db.query<{ n: number }, []>('SELECT count(*) AS n FROM webhook_outbox').get()?.n ?? 0;
    return { integrity, lost, pendingDeliveries: pending + outbox };
  } finally {
    db.close();
  }
}

/** The cycle's acknowledged writes as the restarted daemon serves them; returns what is missing. */
export async function checkHttp(client: Client, acked: Acked): Promise<string[]> {
  const lost: string[] = [];
  for (const [id, values] of acked.values) {
    const variable = await client.call('GET', `/variables/${id}`);
    const history = await client.call('GET', `/variables/${id}/history?limit=10000`);
    if (variable.status !== 200 || history.status !== 200) {
      lost.push(`variable ${id} answered ${variable.status}/${history.status}`);
      continue;
    }
    const kept = new Set((history.body as Array<{ value: string }>).map((h) => h.value));
    kept.add((variable.body as { lastValue: string }).lastValue);
    for (const value of values) if (!kept.has(value)) lost.push(`variable ${id} value ${value} (HTTP)`);
  }
  for (const [table, ids] of acked.created as Map<EntityTable, number[]>) {
    for (const id of ids) {
      const res = await client.call('GET', `${ENTITY_PATH[table]}/${id}`);
      if (res.status !== 200) lost.push(`${table} ${id} answered ${res.status}`);
    }
  }
  for (const [id, n] of acked.edits) {
    const res = await client.call('GET', `/schedule/calendars/${id}`);
    const stored = editCounter((res.body as { description?: string } | null)?.description);
    if (stored < n) lost.push(`calendar ${id} edit ${n} (served ${stored})`);
  }
  return lost;
}
