/**
 * Creating and updating playables (§14): the collection upsert keyed by `_id` or subsystem +
 * externalRef, and updates by `{id}`. Integration callers write only their own subsystems' playables.
 * The answer is the playable as read by the request that wrote it (`origin` for its object links).
 *
 * `media` playables (§14 rule 1), decisions where §14 is silent:
 * - The server writes `command` at every write of a media playable, from its first object
 *   (objects/media-playable.ts `mediaCommand`: the object's kind key and always `data.video.self`);
 *   a `command` the client sends is ignored. With no object, the command is "". Rewriting at every
 *   write (not only when `objects` or `type` change) means a playable registered before its
 *   object's upload gets the right kind key at its next write. The stored command names the
 *   object's path, which stays right when the content is replaced; nothing rewrites it from the
 *   object store's side.
 * - `duration` 0 means "none of its own": the write takes the first object's (`mediaDurationOf`:
 *   10 000 ms for an image, `metadata.duration` for video and audio) when known. A duration once
 *   stored is the playable's own: a client that changes the media sends `duration: 0` to have it
 *   taken from the new object again.
 * - A playable that stops being `media` keeps its last command until a client sends another.
 *
 * A composition's playable (§15 rule 1): its `type`, `objects`, `templatePath`, `duration` and
 * `command` belong to the composition, whose every save rewrites them; written here they are
 * ignored like read-only fields (CONVENTIONS), the rest (names, flags, metadata) stays writable.
 */
import { eq } from 'drizzle-orm';
import { changedFields } from '../../core/changes';
import { type Principal, requireOwnWrite } from '../../core/principal';
import { findSubsystem } from '../../core/subsystems';
import { playables } from '../../db/schema';
import type { Deps } from '../../deps';
import { invalid, notFound } from '../../http/errors';
import { cleanName, mergeMetadata, nameOfRef } from '../../http/fields';
import { upsertTarget } from '../../http/upsert';
import { transact } from '../../realtime/emit';
import { mediaCommand, mediaDurationOf, mediaObject } from '../objects/media-playable';
import { isContainer } from '../subsystems/service';
import { objectsOf, subsystemOf, templatePathOf, thumbOf, typeOf } from './checks';
import { type PlayableRow, playableDto, playableRowById, playableRowByRef } from './lookup';
import type { PlayableDto, PlayableWrite } from './model';
import { emitPlayable } from './service';

type Changes = Partial<
  Omit<PlayableRow, 'id' | 'subsystemId' | 'externalRef' | 'compositionId' | 'createdAt' | 'updatedAt'>
>;

/** Row column → wire field, for the `changed` list of events. */
const WIRE_NAMES: Record<keyof Changes, string> = {
  displayName: 'displayName',
  description: 'description',
  command: 'command',
  groupName: 'group',
  duration: 'duration',
  durationType: 'durationType',
  type: 'type',
  objects: 'objects',
  thumbId: 'thumbId',
  templatePath: 'templatePath',
  active: 'active',
  availableInSubsystem: 'availableInSubsystem',
  forceCached: 'forceCached',
  isCached: 'isCached',
  copyToPlayer: 'copyToPlayer',
  autoSync: 'autoSync',
  metadata: 'metadata',
};

const FLAGS = ['active', 'availableInSubsystem', 'forceCached', 'isCached', 'copyToPlayer', 'autoSync'] as const;

/** The default name: the externalRef, else `Playable <_id>`. */
const defaultName = (externalRef: string | null, id: number): string => nameOfRef(externalRef) ?? `Playable ${id}`;

/** The checked row values a body sets; absent fields are left out and keep their value. */
function changesOf(deps: Deps, body: PlayableWrite, subsystemId: number, row: PlayableRow | undefined): Changes {
  const changes: Changes = {};
  if (body.displayName != null) changes.displayName = cleanName(body.displayName);
  if (body.description !== undefined) changes.description = body.description;
  if (body.command !== undefined) changes.command = body.command;
  if (body.group !== undefined) changes.groupName = body.group;
  if (body.duration !== undefined) changes.duration = body.duration;
  if (body.durationType !== undefined) changes.durationType = body.durationType;
  if (body.type !== undefined) {
    const type = typeOf(body.type, row);
    if (type !== undefined) changes.type = type;
  }
  if (body.objects !== undefined) changes.objects = objectsOf(deps, body.objects, row?.objects ?? []);
  if (body.thumbId !== undefined) changes.thumbId = thumbOf(deps, body.thumbId, row?.thumbId ?? null);
  if (body.templatePath !== undefined) {
    changes.templatePath = templatePathOf(deps, subsystemId, row?.id ?? null, body.templatePath);
  }
  for (const flag of FLAGS) if (body[flag] !== undefined) changes[flag] = body[flag];
  if (changes.copyToPlayer === true && row?.copyToPlayer !== true && !isContainer(findSubsystem(deps, subsystemId))) {
    throw invalid('/copyToPlayer', 'needs a container subsystem as owner: only its players can receive copies');
  }
  if (body.metadata !== undefined) changes.metadata = mergeMetadata(row?.metadata ?? {}, body.metadata);
  if ((changes.type ?? row?.type) === 'media') mediaChanges(deps, changes, row);
  if (row?.compositionId != null) for (const field of COMPOSED) delete changes[field];
  return changes;
}

/** What each save of its composition rewrites on a composition's playable (§15 rule 1): ignored here. */
const COMPOSED = ['type', 'objects', 'templatePath', 'duration', 'command'] as const;

/** A media playable's command and, while it has none of its own, its duration, from its first object. */
function mediaChanges(deps: Deps, changes: Changes, row: PlayableRow | undefined): void {
  const first = (changes.objects ?? row?.objects ?? [])[0];
  const object = first === undefined ? undefined : mediaObject(deps, first);
  changes.command = first === undefined ? '' : mediaCommand(first, object);
  if ((changes.duration ?? row?.duration ?? 0) === 0) {
    const duration = mediaDurationOf(object);
    if (duration > 0) changes.duration = duration;
  }
}

function createPlayable(deps: Deps, principal: Principal, body: PlayableWrite, origin: string): PlayableDto {
  const subsystem = subsystemOf(deps, body);
  requireOwnWrite(principal, 'media:write', subsystem.id);
  const externalRef = body.externalRef ?? null;
  const changes = changesOf(deps, body, subsystem.id, undefined);
  const now = deps.clock.now();
  const row = transact(deps, () => {
    const inserted = deps.db
      .insert(playables)
      .values({
        subsystemId: subsystem.id,
        externalRef,
        displayName: changes.displayName ?? nameOfRef(externalRef) ?? '',
        objects: [],
        metadata: {},
        ...changes,
        createdAt: now,
        updatedAt: now,
      })
      .returning()
      .get();
    let created = inserted;
    if (inserted.displayName === '') {
      // Unnamed, without an externalRef that names it: the default name needs the `_id` just given.
      const displayName = defaultName(null, inserted.id);
      deps.db.update(playables).set({ displayName }).where(eq(playables.id, inserted.id)).run();
      created = { ...inserted, displayName };
    }
    emitPlayable(deps, principal, 'created', created, Object.values(WIRE_NAMES));
    return created;
  });
  return playableDto(deps, row, origin);
}

function updatePlayable(
  deps: Deps,
  principal: Principal,
  row: PlayableRow,
  body: PlayableWrite,
  origin: string,
): PlayableDto {
  requireOwnWrite(principal, 'media:write', row.subsystemId);
  const changes = changesOf(deps, body, row.subsystemId, row);
  if (body.displayName === null) changes.displayName = defaultName(row.externalRef, row.id);
  const changed = changedFields(row, changes);
  if (changed.length === 0) return playableDto(deps, row, origin);
  const updated = transact(deps, () => {
    const stored =
      deps.db
        .update(playables)
        .set({ ...changes, updatedAt: deps.clock.now() })
        .where(eq(playables.id, row.id))
        .returning()
        .get() ?? row;
    emitPlayable(
      deps,
      principal,
      'updated',
      stored,
      changed.map((key) => WIRE_NAMES[key]),
    );
    return stored;
  });
  return playableDto(deps, updated, origin);
}

/** `PUT`/`PATCH /playables/{id}`: updates the writable fields present in the body. */
export function updatePlayableById(
  deps: Deps,
  principal: Principal,
  id: string,
  body: PlayableWrite,
  origin: string,
): PlayableDto {
  const row = playableRowById(deps, id);
  if (!row) throw notFound('playable', id);
  return updatePlayable(deps, principal, row, body, origin);
}

/**
 * `POST`/`PUT /playables` (C: Requests): updates the playable the body names by `_id` (when it
 * exists: an unknown `_id` is ignored) or by subsystem + `externalRef`; otherwise creates one (a
 * playable without externalRef is always new). Unknown subsystem → 404.
 */
export function upsertPlayable(
  deps: Deps,
  principal: Principal,
  body: PlayableWrite,
  origin: string,
): { entity: PlayableDto; created: boolean } {
  const ref = body.externalRef;
  const existing = upsertTarget(
    body._id,
    (id) => playableRowById(deps, id),
    () => (ref == null ? undefined : playableRowByRef(deps, subsystemOf(deps, body).id, ref)),
  );
  if (existing) return { entity: updatePlayable(deps, principal, existing, body, origin), created: false };
  return { entity: createPlayable(deps, principal, body, origin), created: true };
}
