/**
 * The action queue of §3 (rule 8, "Heartbeat answer", "Action request"): messages wait as rows until
 * the subsystem's next heartbeat collects them, at most once, or they expire after the setting
 * `subsystems.actionMessageTtlSeconds`. Other modules queue through `queueMessage` (parameters:
 * `setParameters`; playables: `forcePlay`, `previewPlay`). A heartbeat of a subsystem with nothing
 * queued answers from memory (`deps.actionQueue`, a superset of the subsystems with queued messages).
 *
 * `forcePlay`/`previewPlay` name a playable of the subsystem (`playableId`) or a cms-media object
 * (`objectId`, §14 rule 1: its unsaved instant playable, objects/media-playable.ts). Decisions:
 * - Both ids → 400 at `/objectId`; neither → 400 at `/playableId`.
 * - `objectId` naming no cms-media object (never made, purged, or of another bucket) → 400 at
 *   `/objectId`; an object that exists but is not `uploaded` (no content yet, or in the trash) → 409,
 *   as §3's action errors say ("409 object not uploaded").
 * - Media (an object, or a playable of type `media`) to a subsystem without `directMediaPlayback`
 *   → 409: it would not fetch the content.
 * - The payload's object links (`objectsDetails[]._links.get`) are built for the origin of the
 *   request that queued the message (the route passes it); without one, for the daemon's loopback
 *   address (`localOrigin`). The payload is fixed when queued, as every message is: a heartbeat
 *   delivers it as it was (its signed links last 24 h, longer than a message waits).
 */
import { and, asc, desc, eq, gte, inArray, lt, lte, ne, sql } from 'drizzle-orm';
import { writeAuditLog } from '../../core/platform-log';
import { type Principal, requireOwnWrite } from '../../core/principal';
import { getSettingGroup } from '../../core/settings';
import { requireSubsystem, type SubsystemRow } from '../../core/subsystems';
import { prepared } from '../../db/prepared';
import { subsystemMessages, subsystems } from '../../db/schema';
import type { Deps } from '../../deps';
import { conflict, invalid } from '../../http/errors';
import { type ListResult, type Page, paginate } from '../../http/lists';
import { emit, transact } from '../../realtime/emit';
import { instantPlayableOfObject, localOrigin, mediaObject } from '../objects/media-playable';
import { findPlayable, toInstantPlayable } from '../playables/lookup';
import type { InstantPlayable } from '../playables/model';
import { liveHealth } from './health';
import { type MessageRow, toActionMessage, toDeliveredMessage, toQueuedAction } from './mapper';
import type { ActionMessageDto, ActionRequest, DeliveredMessageDto, QueuedActionDto } from './model';

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

/** Until zones exist (§11), a zone is named after its id. */
export function zoneName(zoneId: number): string {
  return `Zone ${zoneId}`;
}

function announce(deps: Deps, event: string, externalId: string, messages: readonly MessageRow[]): void {
  for (const m of messages) {
    emit(deps, `subsystem.action.${event}`, { _id: m.subsystemId, externalId, uuid: m.uuid, type: m.type });
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

/** Queues a message for the subsystem's next heartbeat answer; emits `subsystem.action.queued`. */
export function queueMessage(deps: Deps, subsystemId: number, input: QueueInput): MessageRow {
  const subsystem = requireSubsystem(deps, subsystemId);
  const now = deps.clock.now();
  const ttlMs = getSettingGroup(deps, 'subsystems').actionMessageTtlSeconds * 1000;
  return transact(deps, () => {
    const waiting = waitingOf(deps, subsystem.id);
    const live = waiting.filter((m) => m.expiresAt > now);
    const expired = [
      ...waiting.filter((m) => m.expiresAt <= now),
      ...live.slice(0, Math.max(0, live.length - (MAX_WAITING - 1))),
    ];
    if (expired.length > 0) {
      deps.db
        .update(subsystemMessages)
        .set({ state: 'expired' })
        .where(
          inArray(
            subsystemMessages.id,
            expired.map((m) => m.id),
          ),
        )
        .run();
    }
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
        expiresAt: now + ttlMs,
      })
      .returning()
      .get();
    // Added before the commit: a rollback leaves a superset, which only costs one query.
    mayWait(deps).add(subsystem.id);
    announce(deps, 'expired', subsystem.externalId, expired);
    announce(deps, 'queued', subsystem.externalId, [row]);
    return row;
  });
}

/**
 * The heartbeat's part (rule 1): every queued, unexpired message, oldest first, marked delivered so
 * it is sent once; overdue ones are marked expired and skipped. Writes only when something waits.
 */
export function collectMessages(deps: Deps, subsystem: SubsystemRow): DeliveredMessageDto[] {
  const candidates = mayWait(deps);
  if (!candidates.has(subsystem.id)) return [];
  const waiting = waitingOf(deps, subsystem.id);
  if (waiting.length === 0) {
    candidates.delete(subsystem.id);
    return [];
  }
  const now = deps.clock.now();
  const due = waiting.filter((m) => m.expiresAt > now);
  const overdue = waiting.filter((m) => m.expiresAt <= now);
  transact(deps, (unit) => {
    if (due.length > 0) {
      deps.db
        .update(subsystemMessages)
        .set({ state: 'delivered', deliveredAt: now })
        .where(
          inArray(
            subsystemMessages.id,
            due.map((m) => m.id),
          ),
        )
        .run();
    }
    if (overdue.length > 0) {
      deps.db
        .update(subsystemMessages)
        .set({ state: 'expired' })
        .where(
          inArray(
            subsystemMessages.id,
            overdue.map((m) => m.id),
          ),
        )
        .run();
    }
    announce(deps, 'expired', subsystem.externalId, overdue);
    announce(deps, 'delivered', subsystem.externalId, due);
    // Everything that waited is now delivered or expired; a rollback keeps the id.
    unit.afterCommit(() => candidates.delete(subsystem.id));
  });
  return due.map(toDeliveredMessage);
}

/** Marks every overdue queued message expired (`subsystem.action.expired`); run every second by the jobs. */
export function sweepExpiredMessages(deps: Deps): number {
  const now = deps.clock.now();
  const overdue = deps.db
    .select({ message: subsystemMessages, externalId: subsystems.externalId })
    .from(subsystemMessages)
    .innerJoin(subsystems, eq(subsystems.id, subsystemMessages.subsystemId))
    .where(and(eq(subsystemMessages.state, 'queued'), lte(subsystemMessages.expiresAt, now)))
    .orderBy(asc(subsystemMessages.id))
    .all();
  if (overdue.length === 0) return 0;
  transact(deps, () => {
    deps.db
      .update(subsystemMessages)
      .set({ state: 'expired' })
      .where(
        and(
          inArray(
            subsystemMessages.id,
            overdue.map((o) => o.message.id),
          ),
          eq(subsystemMessages.state, 'queued'),
        ),
      )
      .run();
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

/** `GET /subsystems/{id}/actions`: messages of the last 24 h, at most 100, newest first, paged. */
export function listActions(deps: Deps, id: string, page: Page): ListResult<ActionMessageDto> {
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
    rows.map((m) => toActionMessage(m, now)),
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

/**
 * What a `forcePlay`/`previewPlay` plays, in its instant form: a playable of the subsystem (players
 * and their containers come with §13), or a cms-media object (decisions above).
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
  if (!playable || playable.subsystemId !== subsystem.id) {
    throw invalid('/playableId', 'is not a playable of this subsystem');
  }
  if (mustBePlayable && (!playable.active || !playable.availableInSubsystem)) {
    throw conflict(`playable ${playable._id} is inactive or unavailable in its subsystem`);
  }
  if (playable.type === 'media') requireDirectMedia(subsystem);
  return toInstantPlayable(playable);
}

function inputOf(deps: Deps, subsystem: SubsystemRow, body: ActionRequest, origin: string): QueueInput {
  switch (body.type) {
    case 'forcePlay': {
      const zoneId = body.zoneId ?? 1;
      const playable = instantPlayableFor(deps, subsystem, body, true, origin);
      return {
        type: body.type,
        zone: zoneName(zoneId),
        zoneId,
        playType: body.playType ?? 'once',
        payload: { playable },
      };
    }
    case 'previewPlay': {
      const playable = instantPlayableFor(deps, subsystem, body, false, origin);
      const panel = body.controlPanelId === undefined ? {} : { controlPanelId: body.controlPanelId };
      return { type: body.type, payload: { playable, ...panel } };
    }
    case 'identify':
      return { type: body.type, payload: { topic: body.topic ?? '' } };
    case 'forceStop': {
      const zoneId = body.zoneId ?? 1;
      return { type: body.type, zone: zoneName(zoneId), zoneId, payload: {} };
    }
    case 'previewStop':
      return { type: body.type, payload: {} };
  }
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
  const input = inputOf(deps, subsystem, body, origin);
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
