/**
 * The action queue of §3 (rules 1 and 8, "Heartbeat answer", "Action request"): messages wait as rows
 * until a heartbeat collects them, one per answer, oldest first, each at most once, or they expire
 * after the setting `subsystems.actionMessageTtlSeconds`, counted from when they reach the head of
 * the queue. A queued stop removes the earlier undelivered plays it would only undo. Other modules queue through `queueMessage` (parameters:
 * `setParameters`; playables: `forcePlay`, `previewPlay`). A heartbeat of a subsystem with nothing
 * queued answers from memory (`deps.actionQueue`, a superset of the subsystems with queued messages).
 *
 * `forcePlay`/`previewPlay` name a playable of the subsystem (`playableId`) or a cms-media object
 * (`objectId`, §14 rule 1: its unsaved instant playable, objects/media-playable.ts). Instant play of a
 * stored playable (`POST /playables/{id}/play` and `/stop`, modules/playables/play.ts) builds its
 * messages with `forcePlayInput`/`forceStopInput` and queues them through `queueAction`, the same
 * path as this route. Decisions:
 * - Both ids → 400 at `/objectId`; neither → 400 at `/playableId`.
 * - A player may be sent its own playables and those of its container (§3 "Bad input"); any other
 *   playable → 400 at `/playableId`.
 * - `zone` is the zone's `displayName` (zone 1 is "Main"); a `zoneId` naming no zone is 400 at
 *   `/zoneId` (a field driver shown a made-up "Zone 99" cannot play it anywhere).
 * - `objectId` naming no cms-media object (never made, purged, or of another bucket) → 400 at
 *   `/objectId`; an object that exists but is not `uploaded` (no content yet, or in the trash) → 409,
 *   as §3's action errors say ("409 object not uploaded").
 * - Media (an object, or a playable of type `media`) to a subsystem without `directMediaPlayback`
 *   → 409: it would not fetch the content.
 * - `previewPlay`'s `controlPanelId` must name a control panel that exists (registered or available,
 *   as a composition's preview requires): 400 at `/controlPanelId`, nothing queued; the device would
 *   be told to show the preview on a panel nobody can open.
 * - The payload's object links (`objectsDetails[]._links.get`, absolute and signed, §12) are built
 *   for whoever reads the message, when it reads it: the heartbeat that collects it gets them on the
 *   origin that heartbeat was sent to (its Host: the address the player itself knows the appliance
 *   by), signed from delivery; the actions list on its own request's origin. The host of the request
 *   that queued it (an operator's browser, through a tunnel or a name the player cannot resolve) is
 *   never handed to the device. When queued they are built on that request's origin (or, without
 *   one, the daemon's loopback address, `localOrigin`) and stored so; the rest of the payload is
 *   delivered as it was queued. A heartbeat with nothing waiting does no part of this.
 */
import { and, asc, desc, eq, gte, inArray, lt, lte, ne, sql } from 'drizzle-orm';
import { writeAuditLog } from '../../core/platform-log';
import { type Principal, requireOwnWrite } from '../../core/principal';
import { getSettingGroup } from '../../core/settings';
import { requireSubsystem, type SubsystemRow } from '../../core/subsystems';
import { prepared } from '../../db/prepared';
import { subsystemMessages, subsystems } from '../../db/schema';
import type { Deps } from '../../deps';
import { type AppError, conflict, invalid } from '../../http/errors';
import { originOf } from '../../http/links';
import { type ListResult, type Page, paginate, whereFields } from '../../http/lists';
import { emit, transact } from '../../realtime/emit';
import { findPanel } from '../control-panels/service';
import { instantPlayableOfObject, localOrigin, mediaObject } from '../objects/media-playable';
import { findPlayable, instantPlayableOn, toInstantPlayable } from '../playables/lookup';
import type { InstantPlayable, PlayableDto } from '../playables/model';
import { findZoneRow } from '../schedule/zones/service';
import { liveHealth } from './health';
import { type MessageRow, toActionMessage, toDeliveredMessage, toQueuedAction } from './mapper';
import {
  ACTION_FIELD_FILTERS,
  type ActionMessageDto,
  type ActionRequest,
  type DeliveredMessageDto,
  type QueuedActionDto,
} from './model';

/** At most this many messages wait per subsystem; a new one beyond that expires the oldest. */
export const MAX_WAITING = 100;
const LIST_WINDOW_MS = 24 * 60 * 60 * 1000;
const LIST_MAX = 100;

export interface QueueInput {
  type: string;
  payload: Record<string, unknown>;
  zone?: string;
  zoneId?: number;
  playType?: string;
}

/** The `zone` of a message: the zone's name; an id naming no zone is 400 at `/zoneId`. */
function zoneName(deps: Deps, zoneId: number): string {
  const zone = findZoneRow(deps, zoneId);
  if (!zone) throw invalid('/zoneId', 'names no zone');
  return zone.displayName;
}

function announce(
  deps: Deps,
  event: string,
  externalId: string,
  messages: readonly MessageRow[],
  extra: Record<string, unknown> = {},
): void {
  for (const m of messages) {
    emit(deps, `subsystem.action.${event}`, { _id: m.subsystemId, externalId, uuid: m.uuid, type: m.type, ...extra });
  }
}

function waitingOf(deps: Deps, subsystemId: number): MessageRow[] {
  const queued = prepared(deps, 'subsystems.actions', () =>
    deps.db
      .select()
      .from(subsystemMessages)
      .where(
        and(eq(subsystemMessages.subsystemId, sql.placeholder('subsystemId')), eq(subsystemMessages.state, 'queued')),
      )
      .orderBy(asc(subsystemMessages.id))
      .prepare(),
  );
  return queued.all({ subsystemId });
}

/** The subsystems that may have messages waiting (state.ts `ActionQueueState`), read from the table on first use. */
function mayWait(deps: Deps): Set<number> {
  if (deps.actionQueue.waiting === null) {
    const rows = deps.db
      .selectDistinct({ id: subsystemMessages.subsystemId })
      .from(subsystemMessages)
      .where(eq(subsystemMessages.state, 'queued'))
      .all();
    deps.actionQueue.waiting = new Set(rows.map((r) => r.id));
  }
  return deps.actionQueue.waiting;
}

/** What a stop undoes (rule 1): the plays of its zone (forceStop) or every preview (previewStop). */
function undoneBy(input: QueueInput, m: MessageRow): boolean {
  if (input.type === 'forceStop') return m.type === 'forcePlay' && (m.zoneId ?? 1) === (input.zoneId ?? 1);
  return input.type === 'previewStop' && m.type === 'previewPlay';
}

/**
 * Rule 1's expiry: a message's time to live counts from when it reaches the head of its queue, so
 * each stored `expiresAt` is the head's expiry plus one TTL per place behind it — exact for as long
 * as no heartbeat comes, and written again (`rechain`) when one takes the head or a message leaves
 * the middle. Expiry checks stay one comparison, and the sweep takes the head first.
 */
function rechain(deps: Deps, queue: readonly MessageRow[], headExpiresAt: number, ttlMs: number): void {
  const setExpiry = prepared(deps, 'subsystems.actions.expiry', () =>
    deps.db
      .update(subsystemMessages)
      .set({ expiresAt: sql`${sql.placeholder('expiresAt')}` })
      .where(eq(subsystemMessages.id, sql.placeholder('id')))
      .prepare(),
  );
  queue.forEach((m, i) => {
    const expiresAt = headExpiresAt + i * ttlMs;
    if (m.expiresAt !== expiresAt) setExpiry.run({ id: m.id, expiresAt });
  });
}

function markExpired(deps: Deps, messages: readonly MessageRow[]): void {
  if (messages.length === 0) return;
  deps.db
    .update(subsystemMessages)
    .set({ state: 'expired' })
    .where(
      inArray(
        subsystemMessages.id,
        messages.map((m) => m.id),
      ),
    )
    .run();
}

/**
 * A time to live counts elapsed time (rule 8): when the wall clock steps (NTP, an operator's date
 * change), the stored expiries of queued messages move with it, before anything compares them with now.
 */
function followWallStep(deps: Deps): void {
  const step = deps.actionQueue.wallSteps.take(deps.clock);
  if (step === 0) return;
  transact(deps, () => {
    deps.db
      .update(subsystemMessages)
      .set({ expiresAt: sql`${subsystemMessages.expiresAt} + ${step}` })
      .where(eq(subsystemMessages.state, 'queued'))
      .run();
  });
}

const ttlOf = (deps: Deps): number => getSettingGroup(deps, 'subsystems').actionMessageTtlSeconds * 1000;

/**
 * Queues a message for the subsystem's next heartbeat answer; emits `subsystem.action.queued`. A
 * stop removes the earlier undelivered plays it would only undo (marked expired, rule 1); beyond
 * `MAX_WAITING` the oldest expires (rule 8).
 */
export function queueMessage(deps: Deps, subsystemId: number, input: QueueInput): MessageRow {
  const subsystem = requireSubsystem(deps, subsystemId);
  followWallStep(deps);
  const now = deps.clock.now();
  const ttlMs = ttlOf(deps);
  return transact(deps, () => {
    const waiting = waitingOf(deps, subsystem.id);
    const overdue = waiting.filter((m) => m.expiresAt <= now);
    const undone = waiting.filter((m) => m.expiresAt > now && undoneBy(input, m));
    const live = waiting.filter((m) => m.expiresAt > now && !undoneBy(input, m));
    const dropped = live.slice(0, Math.max(0, live.length - (MAX_WAITING - 1)));
    const kept = live.slice(dropped.length);
    const expired = [...overdue, ...dropped];
    markExpired(deps, [...expired, ...undone]);
    // The first kept message is the head from now on unless it already was.
    const head = kept[0];
    const headExpiresAt = head === undefined ? now + ttlMs : head === live[0] ? head.expiresAt : now + ttlMs;
    rechain(deps, kept, headExpiresAt, ttlMs);
    const row = deps.db
      .insert(subsystemMessages)
      .values({
        uuid: crypto.randomUUID(),
        subsystemId: subsystem.id,
        type: input.type,
        zone: input.zone ?? null,
        zoneId: input.zoneId ?? null,
        playType: input.playType ?? null,
        payload: input.payload,
        state: 'queued',
        createdAt: now,
        expiresAt: headExpiresAt + kept.length * ttlMs,
      })
      .returning()
      .get();
    // Added before the commit: a rollback leaves a superset, which only costs one query.
    mayWait(deps).add(subsystem.id);
    announce(deps, 'expired', subsystem.externalId, expired);
    announce(deps, 'expired', subsystem.externalId, undone, { reason: `undone by ${input.type} ${row.uuid}` });
    announce(deps, 'queued', subsystem.externalId, [row]);
    return row;
  });
}

/** A stored message with its payload's object links made for `origin` (decisions above); others as stored. */
function forReader(deps: Deps, row: MessageRow, origin: string): MessageRow {
  const playable = row.payload.playable as InstantPlayable | undefined;
  if (!Array.isArray(playable?.objectsDetails) || playable.objectsDetails.length === 0) return row;
  return { ...row, payload: { ...row.payload, playable: instantPlayableOn(deps, playable, origin) } };
}

/**
 * The heartbeat's part (rule 1): the oldest queued, unexpired message, marked delivered so it is
 * sent once (a field driver reads only `message[0]`); overdue ones before it are marked expired and
 * skipped; the ones behind it start counting their time to live from now, one after the other.
 * Writes only when something waits. `request`: the heartbeat's, whose origin the delivered message's
 * object links are built for (read only when a message is delivered).
 */
export function collectMessages(deps: Deps, subsystem: SubsystemRow, request: Request): DeliveredMessageDto[] {
  const candidates = mayWait(deps);
  if (!candidates.has(subsystem.id)) return [];
  followWallStep(deps);
  const waiting = waitingOf(deps, subsystem.id);
  if (waiting.length === 0) {
    candidates.delete(subsystem.id);
    return [];
  }
  const now = deps.clock.now();
  const overdue = waiting.filter((m) => m.expiresAt <= now);
  const live = waiting.filter((m) => m.expiresAt > now);
  const [due, ...behind] = live;
  transact(deps, (unit) => {
    markExpired(deps, overdue);
    if (due) {
      deps.db
        .update(subsystemMessages)
        .set({ state: 'delivered', deliveredAt: now })
        .where(eq(subsystemMessages.id, due.id))
        .run();
    }
    const ttlMs = ttlOf(deps);
    rechain(deps, behind, now + ttlMs, ttlMs);
    announce(deps, 'expired', subsystem.externalId, overdue);
    announce(deps, 'delivered', subsystem.externalId, due ? [due] : []);
    // Nothing waits any more; a rollback keeps the id.
    if (behind.length === 0) unit.afterCommit(() => candidates.delete(subsystem.id));
  });
  return due ? [toDeliveredMessage(forReader(deps, due, originOf(request)))] : [];
}

/** Marks every overdue queued message expired (`subsystem.action.expired`); run every second by the jobs (prepared once). */
export function sweepExpiredMessages(deps: Deps): number {
  const { overdue: overdueNow } = prepared(deps, 'subsystems.actions.sweep', () => ({
    overdue: deps.db
      .select({ message: subsystemMessages, externalId: subsystems.externalId })
      .from(subsystemMessages)
      .innerJoin(subsystems, eq(subsystems.id, subsystemMessages.subsystemId))
      .where(and(eq(subsystemMessages.state, 'queued'), lte(subsystemMessages.expiresAt, sql.placeholder('now'))))
      .orderBy(asc(subsystemMessages.id))
      .prepare(),
  }));
  followWallStep(deps);
  const overdue = overdueNow.all({ now: deps.clock.now() });
  if (overdue.length === 0) return 0;
  transact(deps, () => {
    markExpired(
      deps,
      overdue.map((o) => o.message),
    );
    for (const o of overdue) announce(deps, 'expired', o.externalId, [o.message]);
  });
  return overdue.length;
}

/** Drops delivered and expired messages older than the 24 h the actions list shows. */
export function pruneMessages(deps: Deps): void {
  deps.db
    .delete(subsystemMessages)
    .where(
      and(ne(subsystemMessages.state, 'queued'), lt(subsystemMessages.createdAt, deps.clock.now() - LIST_WINDOW_MS)),
    )
    .run();
}

/**
 * `GET /subsystems/{id}/actions`: messages of the last 24 h, at most 100, newest first, filtered, paged;
 * their object links on `origin`, the reading request's.
 */
export function listActions(
  deps: Deps,
  id: string,
  query: object,
  page: Page,
  origin: string,
): ListResult<ActionMessageDto> {
  const subsystem = requireSubsystem(deps, id);
  const now = deps.clock.now();
  const rows = deps.db
    .select()
    .from(subsystemMessages)
    .where(and(eq(subsystemMessages.subsystemId, subsystem.id), gte(subsystemMessages.createdAt, now - LIST_WINDOW_MS)))
    .orderBy(desc(subsystemMessages.createdAt), desc(subsystemMessages.id))
    .limit(LIST_MAX)
    .all();
  return paginate(
    whereFields(
      rows.map((m) => toActionMessage(forReader(deps, m, origin), now)),
      query,
      ACTION_FIELD_FILTERS,
    ),
    page,
  );
}

/** Media goes only to a subsystem that fetches and plays objects itself (§3 `directMediaPlayback`). */
function requireDirectMedia(subsystem: SubsystemRow): void {
  if (!subsystem.directMediaPlayback) {
    throw conflict(`subsystem ${subsystem.externalId} does not play media objects (directMediaPlayback is false)`);
  }
}

/** The instant playable of the cms-media object an `objectId` names; it must have its content. */
function objectPlayableFor(deps: Deps, subsystem: SubsystemRow, objectId: number, origin: string): InstantPlayable {
  const object = mediaObject(deps, objectId);
  if (!object) throw invalid('/objectId', 'names no object in cms-media');
  if (object.status !== 'uploaded') {
    throw conflict(
      `object ${object.id} ${object.status === 'deleted' ? 'is in the trash' : 'has no content yet'}; only uploaded media plays`,
    );
  }
  requireDirectMedia(subsystem);
  return instantPlayableOfObject(deps, object, origin);
}

/** A player plays its own playables and its container's (§3 "Bad input"); a subsystem only its own. */
function playsFor(subsystem: SubsystemRow, playable: PlayableDto): boolean {
  return (
    playable.subsystemId === subsystem.id ||
    (subsystem.kind === 'player' && subsystem.containerId !== null && playable.subsystemId === subsystem.containerId)
  );
}

/** 400 at `/playableId`: a playable unknown or not `subsystem`'s to play. */
function notItsPlayable(subsystem: SubsystemRow): AppError {
  const owner = subsystem.kind === 'player' ? 'this player or its container' : 'this subsystem';
  return invalid('/playableId', `is not a playable of ${owner}`);
}

/** The instant form of a stored playable for `subsystem`, checked as the decisions above say. */
function checkedPlayable(subsystem: SubsystemRow, playable: PlayableDto, mustBePlayable: boolean): InstantPlayable {
  if (!playsFor(subsystem, playable)) throw notItsPlayable(subsystem);
  if (mustBePlayable && (!playable.active || !playable.availableInSubsystem)) {
    throw conflict(`playable ${playable._id} is inactive or unavailable in its subsystem`);
  }
  if (playable.type === 'media') requireDirectMedia(subsystem);
  return toInstantPlayable(playable);
}

/**
 * What a `forcePlay`/`previewPlay` plays, in its instant form: a playable of the subsystem (or of a
 * player's container), or a cms-media object (decisions above).
 */
function instantPlayableFor(
  deps: Deps,
  subsystem: SubsystemRow,
  body: ActionRequest,
  mustBePlayable: boolean,
  origin: string,
): InstantPlayable {
  if (body.objectId !== undefined) {
    if (body.playableId !== undefined) throw invalid('/objectId', 'must not be sent with playableId');
    return objectPlayableFor(deps, subsystem, body.objectId, origin);
  }
  if (body.playableId === undefined) throw invalid('/playableId', 'is required');
  const playable = findPlayable(deps, body.playableId, origin);
  if (!playable) throw notItsPlayable(subsystem);
  return checkedPlayable(subsystem, playable, mustBePlayable);
}

/**
 * The `forcePlay` of a stored playable (already read, with its links on the caller's origin) for
 * `subsystem`: 400 when the subsystem may not play it, 409 when it is inactive or unavailable, or
 * media to a subsystem without `directMediaPlayback`.
 */
export function forcePlayInput(
  deps: Deps,
  subsystem: SubsystemRow,
  playable: PlayableDto,
  zoneId: number,
  playType: 'once' | 'infinite',
): QueueInput {
  const instant = checkedPlayable(subsystem, playable, true);
  return { type: 'forcePlay', zone: zoneName(deps, zoneId), zoneId, playType, payload: { playable: instant } };
}

/** The `forceStop` of a zone. */
export function forceStopInput(deps: Deps, zoneId: number): QueueInput {
  return { type: 'forceStop', zone: zoneName(deps, zoneId), zoneId, payload: {} };
}

function inputOf(deps: Deps, subsystem: SubsystemRow, body: ActionRequest, origin: string): QueueInput {
  switch (body.type) {
    case 'forcePlay': {
      const zoneId = body.zoneId ?? 1;
      const playable = instantPlayableFor(deps, subsystem, body, true, origin);
      return {
        type: body.type,
        zone: zoneName(deps, zoneId),
        zoneId,
        playType: body.playType ?? 'once',
        payload: { playable },
      };
    }
    case 'previewPlay': {
      if (body.controlPanelId !== undefined && !findPanel(deps, body.controlPanelId))
        throw invalid('/controlPanelId', 'names no control panel');
      const playable = instantPlayableFor(deps, subsystem, body, false, origin);
      const panel = body.controlPanelId === undefined ? {} : { controlPanelId: body.controlPanelId };
      return { type: body.type, payload: { playable, ...panel } };
    }
    case 'identify':
      return { type: body.type, payload: { topic: body.topic ?? '' } };
    case 'forceStop':
      return forceStopInput(deps, body.zoneId ?? 1);
    case 'previewStop':
      return { type: body.type, payload: {} };
  }
}

/**
 * Queues one message built by the functions above with the audit entry of who asked, and answers
 * what was queued (the 202 body). Joins the caller's unit when there is one, so several targets
 * queue together or not at all. The caller has checked the permission.
 */
export function queueAction(
  deps: Deps,
  principal: Principal,
  subsystem: SubsystemRow,
  input: QueueInput,
): QueuedActionDto {
  const row = transact(deps, () => {
    const queued = queueMessage(deps, subsystem.id, input);
    writeAuditLog(deps, principal, {
      key: 'subsystem.action.queued',
      value: `action ${queued.type} (${queued.uuid}) queued for subsystem ${subsystem.id} (${subsystem.externalId})`,
      subsystemId: subsystem.id,
      subsystemExternalId: subsystem.externalId,
    });
    return queued;
  });
  return toQueuedAction(row, liveHealth(deps, subsystem).status);
}

/**
 * `PUT /subsystems/{id}/action`: queues the message and answers what was queued (202). `origin`: the
 * request's, for the object links of a play payload.
 */
export function requestAction(
  deps: Deps,
  principal: Principal,
  id: string,
  body: ActionRequest,
  origin: string = localOrigin(deps),
): QueuedActionDto {
  const subsystem = requireSubsystem(deps, id);
  requireOwnWrite(principal, 'subsystems:write', subsystem.id);
  return queueAction(deps, principal, subsystem, inputOf(deps, subsystem, body, origin));
}
