/**
 * The webhook outbox (§10 rule 3): an event's deliveries are queued in the transaction of the change
 * that caused it, one per matching active webhook, and the event is published on the bus once that
 * transaction committed. Two ways in, both atomic:
 *
 * - Writer jobs (value writes and everything else that runs in a `Writer` batch) call
 *   `scope.emit(type, data)`: `stageBatchEvent` adds one line per event to the job, and the writer
 *   writes the lines of all the batch's successful jobs as one `webhook_outbox` row just before its
 *   COMMIT (`writeOutboxRow`). A job undone by its savepoint takes its lines along; a batch that fails
 *   to commit leaves no row. One narrow row per batch is what keeps fan-out off the hot path: a
 *   delivery row per write (12 columns, 2 indexes) cost ~7 µs of a ~50 µs value write; a line in the
 *   batch row costs ~1.5 µs, however many webhooks want the event. `takeInOutbox` then turns rows into `webhook_deliveries` rows (with their
 *   `webhook-id`) and deletes them, in one transaction: the dispatcher does that before it looks for
 *   due deliveries, and the delivery log does it before it is read, so an event's deliveries are
 *   listed as soon as they were queued, except behind a flood, when they come into the log in event
 *   order as the dispatcher catches up (they are durable from the moment the write was answered).
 * - A unit run now (`transact`, configuration writes, rare) inserts `webhook_deliveries` rows at once
 *   (`stageEvent`), in its transaction.
 *
 * The active webhooks are cached in memory (invalidated by every webhook write and by subsystem
 * changes), so an event with no webhook attached costs one array-length check.
 */
import { iso } from '../clock';
import type { EventStage } from '../db/unit-of-work';
import type { Deps } from '../deps';
import type { CompiledWebhook, OutboxState } from './outbox-state';

/** The parts the outbox works with (available before the rest of Deps, for the unit of work). */
export type OutboxParts = Pick<Deps, 'sqlite' | 'clock' | 'bus' | 'log' | 'outbox'>;

/** Drops the cached webhooks; the next event reads them again. */
export function invalidateWebhookCache(deps: OutboxParts): void {
  deps.outbox.hooks = null;
}

/** Registers (or clears) the dispatcher's kick, run after an event queued deliveries. */
export function onDeliveriesQueued(deps: OutboxParts, kick: (() => void) | null): void {
  deps.outbox.onQueued = kick;
}

interface HookRow {
  id: number;
  events: string;
  subsystem_ids: string;
}

/** Compiles a webhook's `events` and `subsystemIds` into a matcher. */
export function compileWebhook(
  id: number,
  events: readonly string[],
  subsystemIds: readonly number[],
  externalIds: ReadonlySet<string>,
): CompiledWebhook {
  const exact = new Set<string>();
  const nouns = new Set<string>();
  let all = false;
  for (const name of events) {
    if (name === '*') all = true;
    else if (name.endsWith('.*')) nouns.add(name.slice(0, -2));
    else exact.add(name);
  }
  return {
    id,
    all,
    exact,
    nouns,
    subsystemIds: subsystemIds.length === 0 ? null : new Set(subsystemIds),
    subsystemExternalIds: externalIds,
  };
}

function loadHooks(deps: OutboxParts): CompiledWebhook[] {
  const rows = deps.sqlite
    .query<HookRow, []>('SELECT id, events, subsystem_ids FROM webhooks WHERE active = 1 ORDER BY id')
    .all();
  const externalIdOf = new Map<number, string>();
  return rows.map((row) => {
    const subsystemIds = JSON.parse(row.subsystem_ids) as number[];
    const externalIds = new Set<string>();
    for (const id of subsystemIds) {
      let ext = externalIdOf.get(id);
      if (ext === undefined) {
        ext =
          deps.sqlite
            .query<{ external_id: string }, [number]>('SELECT external_id FROM subsystems WHERE id = ?')
            .get(id)?.external_id ?? '';
        externalIdOf.set(id, ext);
      }
      if (ext !== '') externalIds.add(ext);
    }
    return compileWebhook(row.id, JSON.parse(row.events) as string[], subsystemIds, externalIds);
  });
}

function activeHooks(deps: OutboxParts, state: OutboxState): CompiledWebhook[] {
  if (state.hooks === null) state.hooks = loadHooks(deps);
  return state.hooks;
}

/** The active webhooks (from the same cache the outbox matches events with), in `_id` order. */
export function activeWebhookIds(deps: OutboxParts): number[] {
  return activeHooks(deps, deps.outbox).map((h) => h.id);
}

/**
 * Whether an event is about one of the webhook's subsystems: its data names the subsystem by
 * `subsystemId` or `subsystemExternalId`, or the event is about the subsystem itself. An event about
 * no subsystem does not pass a non-empty filter.
 */
function aboutSubsystem(hook: CompiledWebhook, ids: ReadonlySet<number>, type: string, data: Record<string, unknown>) {
  if (typeof data.subsystemId === 'number') return ids.has(data.subsystemId);
  if (typeof data.subsystemExternalId === 'string') return hook.subsystemExternalIds.has(data.subsystemExternalId);
  if (type.startsWith('subsystem.') && typeof data._id === 'number') return ids.has(data._id);
  return false;
}

/** Whether the webhook wants this event. */
export function webhookMatches(hook: CompiledWebhook, type: string, data: Record<string, unknown>): boolean {
  if (!hook.all && !hook.exact.has(type)) {
    const dot = type.indexOf('.');
    if (dot < 0 || !hook.nouns.has(type.slice(0, dot))) return false;
  }
  return hook.subsystemIds === null || aboutSubsystem(hook, hook.subsystemIds, type, data);
}

const INSERT_SQL = `INSERT INTO webhook_deliveries
  (webhook_id, event_id, event_type, status, attempts, round_attempts, next_attempt_at, payload, created_at, updated_at)
  VALUES (?, ?, ?, 'pending', '[]', 0, ?, ?, ?, ?)`;

/** A fresh `webhook-id` (Standard Webhooks `msg_…`). */
export function newEventId(): string {
  return `msg_${crypto.randomUUID().replaceAll('-', '')}`;
}

/** The exact body every attempt of a delivery sends and signs. */
export function deliveryPayload(type: string, at: string, data: Record<string, unknown>): string {
  return payloadWithData(type, at, JSON.stringify(data));
}

/** The same body around `data` already in JSON (byte for byte what JSON.stringify of the whole would give). */
function payloadWithData(type: string, at: string, dataJson: string): string {
  return `{"type":${JSON.stringify(type)},"timestamp":${JSON.stringify(at)},"data":${dataJson}}`;
}

/**
 * Inserts one pending delivery for a webhook on the current connection (inside the caller's
 * transaction when there is one); returns its row id. It is created at `createdAt` (its event's
 * batch) and due at once: never later than now, so a batch written before the wall clock stepped
 * back is not held until the clock comes back to it (webhooks/record.ts `followWallClock`).
 */
export function insertDelivery(
  deps: OutboxParts,
  webhookId: number,
  type: string,
  payload: string,
  createdAt: number,
): number {
  const state = deps.outbox;
  if (state.insert === null) state.insert = deps.sqlite.prepare(INSERT_SQL);
  const due = Math.min(createdAt, deps.clock.now());
  const result = state.insert.run(webhookId, newEventId(), type, due, payload, createdAt, createdAt);
  return Number(result.lastInsertRowid);
}

/** `webhook.test` goes only to the webhook tested (§10 rule 7), never through the outbox. */
const NEVER_QUEUED = 'webhook.test';

/** The bus publish of a staged event, and the dispatcher's kick when it queued deliveries. */
function publisher(
  deps: OutboxParts,
  state: OutboxState,
  type: string,
  data: Record<string, unknown>,
  at: string,
  queued: number,
  dataJson?: string,
) {
  return () => {
    deps.bus.publish(type, data, at, dataJson);
    if (queued > 0) state.onQueued?.();
  };
}

const NONE: readonly number[] = [];

/** The ids of the active webhooks that want the event (none for `webhook.test`). */
function wantedBy(
  deps: OutboxParts,
  state: OutboxState,
  type: string,
  data: Record<string, unknown>,
): readonly number[] {
  if (type === NEVER_QUEUED) return NONE;
  let ids: number[] | null = null;
  for (const hook of activeHooks(deps, state)) {
    if (!webhookMatches(hook, type, data)) continue;
    if (ids === null) ids = [hook.id];
    else ids.push(hook.id);
  }
  return ids ?? NONE;
}

/**
 * Queues the event's deliveries in the open unit's transaction and returns the publish to run after
 * its commit. An insert failure throws, so the change rolls back with it.
 */
export function stageEvent(deps: OutboxParts, type: string, data: Record<string, unknown>): () => void {
  const at = iso(deps.clock.now());
  const state = deps.outbox;
  const ids = wantedBy(deps, state, type, data);
  if (ids.length === 0) return publisher(deps, state, type, data, at, 0);
  const dataJson = JSON.stringify(data);
  const payload = payloadWithData(type, at, dataJson);
  const now = deps.clock.now();
  for (const id of ids) insertDelivery(deps, id, type, payload, now);
  // The WebSocket frames reuse the data's JSON.
  return publisher(deps, state, type, data, at, ids.length, dataJson);
}

/**
 * A writer job's event: when active webhooks want it, appends its outbox line (the webhooks' ids, the
 * type, the time and the data's JSON; see schema/webhook-outbox.ts) to the job's `lines`, written by
 * `writeOutboxRow` before the batch commits; returns the publish to run after it.
 */
export function stageBatchEvent(deps: OutboxParts, type: string, data: Record<string, unknown>, lines: string[]) {
  const at = iso(deps.clock.now());
  const state = deps.outbox;
  const ids = wantedBy(deps, state, type, data);
  if (ids.length === 0) return publisher(deps, state, type, data, at, 0);
  const dataJson = JSON.stringify(data);
  lines.push(`${ids.join(',')}\t${type}\t${at}\t${dataJson}`);
  return publisher(deps, state, type, data, at, ids.length, dataJson);
}

/** Writes a writer batch's outbox lines as one row, in the batch transaction. */
export function writeOutboxRow(deps: OutboxParts, lines: readonly string[]): void {
  const state = deps.outbox;
  state.insertRow ??= deps.sqlite.prepare('INSERT INTO webhook_outbox (created_at, events) VALUES (?, ?)');
  state.insertRow.run(deps.clock.now(), lines.join('\n'));
}

/**
 * Deliveries one `takeInOutbox` call makes by default, ~7 ms of work: it runs on the event loop that
 * answers value writes, so a backlog is taken in by many short steps, never one long one.
 */
export const TAKE_IN_DELIVERIES = 1000;
/** Outbox rows read per step (a row holds one writer batch: 1 to 512 lines). */
const TAKE_IN_ROWS_READ = 64;

/**
 * Turns outbox rows, oldest first, into pending `webhook_deliveries` (each with a fresh `webhook-id`,
 * created at the time of its batch, with the body `deliveryPayload` would make) and deletes them, in
 * one transaction: whole rows, at least one, until about `maxDeliveries` deliveries were made.
 * Webhooks deleted meanwhile get none (§10: delete drops its pending deliveries). Returns whether rows
 * remain. Must not run inside another transaction.
 */
export function takeInOutbox(deps: OutboxParts, maxDeliveries = TAKE_IN_DELIVERIES): boolean {
  const rows = deps.sqlite
    .query<{ id: number; created_at: number; events: string }, [number]>(
      'SELECT id, created_at, events FROM webhook_outbox ORDER BY id LIMIT ?',
    )
    .all(TAKE_IN_ROWS_READ);
  if (rows.length === 0) return false;
  let lastId = 0;
  deps.sqlite.transaction(() => {
    const known = new Set(
      deps.sqlite
        .query<{ id: number }, []>('SELECT id FROM webhooks')
        .all()
        .map((r) => r.id),
    );
    let made = 0;
    for (const row of rows) {
      if (made >= maxDeliveries) break;
      for (const line of row.events.split('\n')) {
        const [ids = '', type = '', at = ''] = line.split('\t', 3);
        const payload = payloadWithData(type, at, line.slice(ids.length + type.length + at.length + 3));
        for (const id of ids.split(',')) {
          made += 1;
          if (known.has(Number(id))) insertDelivery(deps, Number(id), type, payload, row.created_at);
        }
      }
      lastId = row.id;
    }
    deps.sqlite.run('DELETE FROM webhook_outbox WHERE id <= ?', [lastId]);
  })();
  return lastId !== rows.at(-1)?.id || outboxWaiting(deps);
}

/** Whether the outbox holds rows not yet taken in. */
export function outboxWaiting(deps: OutboxParts): boolean {
  return deps.sqlite.query('SELECT 1 FROM webhook_outbox LIMIT 1').get() !== null;
}

/** Subsystem and player changes can rename the externalIds a subsystem filter matches: read the webhooks again. */
export function installOutboxListeners(deps: OutboxParts): void {
  deps.bus.subscribe((event) => {
    if (/^(subsystem|player)\.(created|updated|deleted)$/.test(event.type)) {
      if (deps.outbox.hooks?.some((h) => h.subsystemIds !== null)) invalidateWebhookCache(deps);
    }
  });
}

/** The outbox as the unit of work stages events into it. */
export function eventStage(deps: OutboxParts): EventStage {
  return {
    stageNow: (type, data) => stageEvent(deps, type, data),
    stage: (type, data, lines) => stageBatchEvent(deps, type, data, lines),
    write: (lines) => writeOutboxRow(deps, lines),
  };
}
