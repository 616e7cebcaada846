/**
 * The mixed write load of the kill -9 torture (tests/e2e/torture.test.ts, scripts/torture.ts): value
 * writes on this cycle's variables, configuration writes (subsystems, variables, events), schedule
 * writes (calendars, scheduled items, calendar edits), all at once, recording every write answered
 * 2xx. A webhook on every event points at a receiver that answers slowly with 503, so deliveries
 * stay pending (and attempts are in flight) when the daemon is killed.
 */
import type { Daemon } from './daemon';

/** What one acknowledged write left behind, to look for after the crash. */
export interface Acked {
  /** variable _id → values answered 200. */
  values: Map<number, string[]>;
  /** table → _ids answered 2xx on create. */
  created: Map<EntityTable, number[]>;
  /** calendar _id → the highest edit counter answered 200. */
  edits: Map<number, number>;
}

export type EntityTable = 'subsystems' | 'variables' | 'events' | 'schedule_calendars' | 'scheduled_items';

/** The API path of one entity of a table (to read it back over HTTP). */
export const ENTITY_PATH: Record<EntityTable, string> = {
  subsystems: '/subsystems',
  variables: '/variables',
  events: '/events',
  schedule_calendars: '/schedule/calendars',
  scheduled_items: '/schedules',
};

/** The list under `key`, created empty on first use. */
function listOf<K, V>(map: Map<K, V[]>, key: K): V[] {
  let list = map.get(key);
  if (!list) {
    list = [];
    map.set(key, list);
  }
  return list;
}

export function emptyAcked(): Acked {
  return { values: new Map(), created: new Map(), edits: new Map() };
}

/** Adds a cycle's acknowledgements to the running total. */
export function mergeAcked(into: Acked, from: Acked): void {
  for (const [id, values] of from.values) listOf(into.values, id).push(...values);
  for (const [table, ids] of from.created) listOf(into.created, table).push(...ids);
  for (const [id, n] of from.edits) into.edits.set(id, Math.max(n, into.edits.get(id) ?? 0));
}

export function ackedCount(acked: Acked): number {
  let n = acked.edits.size;
  for (const values of acked.values.values()) n += values.length;
  for (const ids of acked.created.values()) n += ids.length;
  return n;
}

/** A receiver that holds every delivery for `holdMs` and then refuses it, so deliveries stay pending. */
export function slowReceiver(holdMs: number) {
  const server = Bun.serve({
    port: 0,
    hostname: '127.0.0.1',
    idleTimeout: 0,
    fetch: async (req) => {
      await req.arrayBuffer();
      await Bun.sleep(holdMs);
      return new Response('busy', { status: 503 });
    },
  });
  return { url: `http://127.0.0.1:${server.port}/hook`, stop: () => server.stop(true) };
}

export interface Client {
  call(method: string, path: string, body?: unknown): Promise<{ status: number; body: unknown }>;
}

/** An HTTP client of the daemon acting with the session. */
export function clientOf(daemon: Daemon, session: string): Client {
  return {
    async call(method, path, body) {
      const res = await fetch(`${daemon.baseUrl}/api/v1${path}`, {
        method,
        headers: { 'content-type': 'application/json', authorization: `Bearer ${session}` },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await res.text();
      return { status: res.status, body: text ? (JSON.parse(text) as unknown) : null };
    },
  };
}

function idOf(body: unknown): number {
  const id = (body as { _id?: unknown } | null)?._id;
  if (typeof id !== 'number') throw new Error(`no _id in ${JSON.stringify(body)}`);
  return id;
}

/** A write that must succeed (setup before the load). */
export async function must(client: Client, method: string, path: string, body: unknown): Promise<number> {
  const res = await client.call(method, path, body);
  if (res.status >= 300) throw new Error(`${method} ${path} answered ${res.status}: ${JSON.stringify(res.body)}`);
  return idOf(res.body);
}

/** What a cycle's load writes to, created before the load starts. */
export interface CycleTargets {
  cycle: number;
  subsystem: string;
  variableIds: number[];
  eventId: number;
  calendarId: number;
}

/** Creates the cycle's subsystem, variables, an event to schedule and a calendar to edit. */
export async function prepareCycle(client: Client, cycle: number, variables: number): Promise<CycleTargets> {
  const subsystem = `torture-${cycle}`;
  await must(client, 'POST', '/subsystems', { externalId: subsystem });
  const variableIds: number[] = [];
  for (let i = 0; i < variables; i++)
    variableIds.push(
      await must(client, 'POST', '/variables', { subsystemExternalId: subsystem, externalRef: `v${i}` }),
    );
  const eventId = await must(client, 'POST', '/events', {
    subsystemExternalId: subsystem,
    externalRef: 'cue',
    command: 'GO',
  });
  const calendarId = await must(client, 'POST', '/schedule/calendars', { displayName: `edits ${cycle}` });
  return { cycle, subsystem, variableIds, eventId, calendarId };
}

/**
 * Runs the load until `stopped()` is true. A write counts as acknowledged only when its 2xx answer
 * arrived; a failed connection (the kill) ends that worker, any other answer fails the run.
 */
export async function driveLoad(client: Client, t: CycleTargets, stopped: () => boolean): Promise<Acked> {
  const acked = emptyAcked();
  const failures: string[] = [];
  const created = (table: EntityTable, id: number) => listOf(acked.created, table).push(id);
  // A year ahead: the items are stored and indexed by the runner but never fire during the run.
  const startTime = new Date(Date.now() + 365 * 86_400_000).toISOString();

  const worker = async (step: (n: number) => Promise<void>) => {
    for (let n = 1; !stopped(); n++) {
      try {
        await step(n);
      } catch (err) {
        if (!stopped()) failures.push(String(err));
        return;
      }
    }
  };
  const expect2xx = async (what: string, res: { status: number; body: unknown }) => {
    // A flood limit's 429 is an answer, not an acknowledgement: back off and go on.
    if (res.status === 429) await Bun.sleep(50);
    else if (res.status >= 300 && !stopped())
      throw new Error(`${what} answered ${res.status}: ${JSON.stringify(res.body)}`);
    return res.status < 300;
  };

  const valueWriters = t.variableIds.map((id) =>
    worker(async (n) => {
      const value = `${t.cycle}:${n}:${'x'.repeat(n % 64)}`;
      if (await expect2xx('value', await client.call('POST', `/variables/${id}/value`, { value })))
        listOf(acked.values, id).push(value);
    }),
  );
  const configWriter = worker(async (n) => {
    const kind = n % 3;
    if (kind === 0) {
      const res = await client.call('POST', '/subsystems', { externalId: `torture-${t.cycle}-s${n}` });
      if (await expect2xx('subsystem', res)) created('subsystems', idOf(res.body));
    } else if (kind === 1) {
      const body = { subsystemExternalId: t.subsystem, externalRef: `cfg${n}` };
      const res = await client.call('POST', '/variables', body);
      if (await expect2xx('variable', res)) created('variables', idOf(res.body));
    } else {
      const body = { subsystemExternalId: t.subsystem, externalRef: `e${n}`, command: `GO ${n}` };
      const res = await client.call('POST', '/events', body);
      if (await expect2xx('event', res)) created('events', idOf(res.body));
    }
  });
  const scheduleWriter = worker(async (n) => {
    if (n % 2 === 0) {
      const res = await client.call('POST', '/schedule/calendars', { displayName: `torture ${t.cycle}.${n}` });
      if (await expect2xx('calendar', res)) created('schedule_calendars', idOf(res.body));
    } else {
      const body = { itemType: 'EVENT', itemId: t.eventId, startTime, displayName: `torture ${t.cycle}.${n}` };
      const res = await client.call('POST', '/schedules', body);
      if (await expect2xx('scheduled item', res)) created('scheduled_items', idOf(res.body));
    }
  });
  const editor = worker(async (n) => {
    const res = await client.call('PATCH', `/schedule/calendars/${t.calendarId}`, { description: `edit ${n}` });
    if (await expect2xx('calendar edit', res)) acked.edits.set(t.calendarId, n);
  });

  await Promise.allSettled([...valueWriters, configWriter, scheduleWriter, editor]);
  if (failures.length > 0) throw new Error(`the load failed before the kill: ${failures.slice(0, 3).join('; ')}`);
  return acked;
}
