/**
 * What playables (and later players' default states and compositions) need from the object store
 * (§14 rule 1): the cms-media objects a list of ids names, read in one query; their wire form inside
 * `objectsDetails`; whether they are ready to play; the `command` and `duration` a `media` playable
 * takes from its object; and the unsaved instant playable of one object.
 *
 * Decisions where §14 is silent:
 * - A media playable is built from its first object: `objects[0]` names the content in `command`
 *   and gives the duration; the others only count for `mediaReady` and `objectsDetails`.
 * - The command's kind key is the object's `metadata.type` when it is `video`, `image` or `audio`;
 *   an object without content yet, a `document`, an `other`, or an id whose object was purged gives
 *   `video` only (the key every field driver reads). `data.video.self` is always there.
 * - Duration: an image lasts 10 000 ms; video and audio last their `metadata.duration` (ms, rounded)
 *   when the probe found one; otherwise 0 (unknown). A stored playable takes it only while its own
 *   duration is 0 (write.ts).
 * - `objectsDetails` lists the objects that still exist, in the order of `objects` (a purged id is
 *   left out); each is the object's wire form with `_links.get` signed for the origin of the request
 *   that reads it, and its `usedBy` counted by one `usageOf` call per read (none when no object is
 *   named).
 * - `mediaReady`: every id names an object that exists and is `uploaded`; an empty list is ready.
 *   An object in the trash or without content makes it false until restored or uploaded.
 * - Without a request (no origin), the links are built on `http://localhost:<port>`, the daemon's
 *   own loopback address (`localOrigin`); every HTTP path passes its request's origin instead.
 * - The instant playable of an object: `_id` null, `type` media, named after the object, no
 *   externalRef, no thumbnail, active, `durationType` `static` when a duration is known and `dynamic`
 *   (the media's own end decides) when it is not.
 */
import { and, eq, sql } from 'drizzle-orm';
import { objects } from '../../db/schema';
import type { Deps } from '../../deps';
import { selfLink } from '../../http/links';
import { type InstantPlayable, MAX_DURATION_MS } from '../playables/model';
import { MEDIA_BUCKET } from './files';
import { NOT_USED, type ObjectRow, objectDto, type UsedBy } from './mapper';
import type { ObjectDto } from './model';
import { usageOf } from './service';

/** How long an image plays when nothing else says (§14 rule 1). */
export const IMAGE_DURATION_MS = 10_000;

export type MediaKind = 'video' | 'image' | 'audio';

/** The cms-media objects among `ids` that exist (trash included), by `_id`, from one query. */
export function mediaObjectsByIds(deps: Deps, ids: readonly number[]): Map<number, ObjectRow> {
  const wanted = [...new Set(ids)];
  if (wanted.length === 0) return new Map();
  const rows = deps.db
    .select()
    .from(objects)
    .where(
      and(
        eq(objects.bucket, MEDIA_BUCKET),
        sql`${objects.id} IN (SELECT value FROM json_each(${JSON.stringify(wanted)}))`,
      ),
    )
    .all();
  return new Map(rows.map((row) => [row.id, row]));
}

/** One cms-media object by `_id`, or undefined (never an object of another bucket). */
export function mediaObject(deps: Deps, id: number): ObjectRow | undefined {
  return mediaObjectsByIds(deps, [id]).get(id);
}

/** The kind a media command names: the object's type when it is playable media, else `video`. */
export function mediaKindOf(object: ObjectRow | undefined): MediaKind {
  const type = object?.media?.type;
  return type === 'image' || type === 'audio' ? type : 'video';
}

/** A media playable's `command` (§14 rule 1): JSON text naming the object by path, kind first, always `video`. */
export function mediaCommand(id: number, object: ObjectRow | undefined): string {
  const self = { self: selfLink('objects', id).slice(1) };
  return JSON.stringify({ data: { [mediaKindOf(object)]: self, video: self } });
}

/** The duration a media playable takes from its object when it has none of its own; 0 when unknown. */
export function mediaDurationOf(object: ObjectRow | undefined): number {
  if (!object?.media) return 0;
  if (object.media.type === 'image') return IMAGE_DURATION_MS;
  if (object.media.type !== 'video' && object.media.type !== 'audio') return 0;
  const ms = object.media.duration;
  return ms === undefined || !Number.isFinite(ms) || ms <= 0 ? 0 : Math.min(Math.round(ms), MAX_DURATION_MS);
}

/** The origin of links built without a request: the daemon's own loopback address. */
export function localOrigin(deps: Deps): string {
  return `http://localhost:${deps.config.httpPort}`;
}

/** The objects a page of playables names, read once, and the origin their links are built for. */
export interface NamedObjects {
  rows: Map<number, ObjectRow>;
  usage: Map<number, UsedBy>;
  origin: string;
}

/** Reads every object the given id lists name: one query for the rows, one for `usedBy` (none when empty). */
export function namedObjects(deps: Deps, idLists: ReadonlyArray<readonly number[]>, origin: string): NamedObjects {
  const ids = [...new Set(idLists.flat())];
  const rows = mediaObjectsByIds(deps, ids);
  return { rows, usage: usageOf(deps, [...rows.keys()]), origin };
}

/** `objectsDetails`: the objects `ids` names that exist, in order, in their wire form. */
export function objectsDetailsOf(deps: Deps, named: NamedObjects, ids: readonly number[]): ObjectDto[] {
  const out: ObjectDto[] = [];
  for (const id of ids) {
    const row = named.rows.get(id);
    if (row) out.push(objectDto(deps, row, named.origin, named.usage.get(id) ?? NOT_USED));
  }
  return out;
}

/** `mediaReady`: every id names an uploaded object (an empty list is ready). */
export function mediaReadyOf(named: NamedObjects, ids: readonly number[]): boolean {
  return ids.every((id) => named.rows.get(id)?.status === 'uploaded');
}

/**
 * The instant playable of one object (§14 rule 1, §3 action with `objectId`, §13 default state
 * `single`): unsaved (`_id` null), built as a stored media playable is.
 */
export function instantPlayableOfObject(deps: Deps, object: ObjectRow, origin: string): InstantPlayable {
  const named = namedObjects(deps, [[object.id]], origin);
  const duration = mediaDurationOf(object);
  return {
    _id: null,
    type: 'media',
    displayName: object.displayName,
    externalRef: null,
    command: mediaCommand(object.id, object),
    duration,
    durationType: duration > 0 ? 'static' : 'dynamic',
    objects: [object.id],
    objectsDetails: objectsDetailsOf(deps, named, [object.id]),
    thumbId: null,
    active: true,
    autoSync: false,
    isCached: false,
    metadata: {},
    group_name: '',
  };
}
