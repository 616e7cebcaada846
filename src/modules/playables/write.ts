/**
 * Creating and updating playables (§14): the collection upsert keyed by `_id` or subsystem +
 * externalRef, and updates by `{id}`. Integration callers write only their own subsystems' playables.
 */
import { eq } from 'drizzle-orm';
import { changedFields } from '../../core/changes';
import { type Principal, requireOwnWrite } from '../../core/principal';
import { playables } from '../../db/schema';
import type { Deps } from '../../deps';
import { notFound } from '../../http/errors';
import { cleanName, mergeMetadata } from '../../http/fields';
import { transact } from '../../realtime/emit';
import { objectsOf, subsystemOf, templatePathOf, thumbOf, typeOf } from './checks';
import { type PlayableRow, playableDto, playableEventDto, playableRowById, playableRowByRef } from './lookup';
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
const defaultName = (externalRef: string | null, id: number): string => externalRef ?? `Playable ${id}`;

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
  if (body.objects !== undefined) changes.objects = objectsOf(body.objects);
  if (body.thumbId !== undefined) changes.thumbId = thumbOf(body.thumbId);
  if (body.templatePath !== undefined) {
    changes.templatePath = templatePathOf(deps, subsystemId, row?.id ?? null, body.templatePath);
  }
  for (const flag of FLAGS) if (body[flag] !== undefined) changes[flag] = body[flag];
  if (body.metadata !== undefined) changes.metadata = mergeMetadata(row?.metadata ?? {}, body.metadata);
  // The server writes a media playable's command from its objects (rule 1); none can be named yet.
  if ((changes.type ?? row?.type) === 'media') changes.command = '';
  return changes;
}

function createPlayable(deps: Deps, principal: Principal, body: PlayableWrite): PlayableDto {
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
        displayName: changes.displayName ?? externalRef ?? '',
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
      // Unnamed and without externalRef: the default name needs the `_id` just given.
      const displayName = defaultName(null, inserted.id);
      deps.db.update(playables).set({ displayName }).where(eq(playables.id, inserted.id)).run();
      created = { ...inserted, displayName };
    }
    emitPlayable(deps, principal, 'created', playableEventDto(deps, created), Object.values(WIRE_NAMES));
    return created;
  });
  return playableDto(deps, row);
}

function updatePlayable(deps: Deps, principal: Principal, row: PlayableRow, body: PlayableWrite): PlayableDto {
  requireOwnWrite(principal, 'media:write', row.subsystemId);
  const changes = changesOf(deps, body, row.subsystemId, row);
  if (body.displayName === null) changes.displayName = defaultName(row.externalRef, row.id);
  const changed = changedFields(row, changes);
  if (changed.length === 0) return playableDto(deps, row);
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
      playableEventDto(deps, stored),
      changed.map((key) => WIRE_NAMES[key]),
    );
    return stored;
  });
  return playableDto(deps, updated);
}

/** `PUT`/`PATCH /playables/{id}`: updates the writable fields present in the body. */
export function updatePlayableById(deps: Deps, principal: Principal, id: string, body: PlayableWrite): PlayableDto {
  const row = playableRowById(deps, id);
  if (!row) throw notFound('playable', id);
  return updatePlayable(deps, principal, row, body);
}

/**
 * `POST`/`PUT /playables` (C: Requests): updates the playable the body names by `_id` (404 when
 * unknown) or by subsystem + `externalRef`; otherwise creates one (a playable without externalRef is
 * always new). Unknown subsystem → 404.
 */
export function upsertPlayable(
  deps: Deps,
  principal: Principal,
  body: PlayableWrite,
): { entity: PlayableDto; created: boolean } {
  if (body._id !== undefined) {
    const row = playableRowById(deps, body._id);
    if (!row) throw notFound('playable', body._id);
    return { entity: updatePlayable(deps, principal, row, body), created: false };
  }
  if (body.externalRef != null) {
    const subsystem = subsystemOf(deps, body);
    const existing = playableRowByRef(deps, subsystem.id, body.externalRef);
    if (existing) return { entity: updatePlayable(deps, principal, existing, body), created: false };
  }
  return { entity: createPlayable(deps, principal, body), created: true };
}
