/**
 * The field rules of §14 that a schema cannot say; each throws the one validation error.
 *
 * Object references (`objects`, `thumbId`), decisions where §14 is silent:
 * - An id must name an object of cms-media that has not been purged, whatever its status: `created`
 *   (an integration may register a playable before the upload finishes), `uploaded`, or `deleted`
 *   (in the trash, restorable). Only `uploaded` objects make the playable `mediaReady`.
 * - Ids the playable already names are kept without looking again: a client that reads a playable
 *   and PUTs it back (C: Requests) is not refused because one of its objects was purged meanwhile.
 * - `objects` is stored as sent (order kept, a repeated id allowed).
 * - `thumbId` must be an image: an object whose content is known (uploaded, or trashed with
 *   content) and is not `image` is refused; a record without content yet is accepted.
 */
import { and, eq } from 'drizzle-orm';
import { type SubsystemRow, subsystemNamedBy } from '../../core/subsystems';
import { playables, type TemplatePath } from '../../db/schema';
import type { Deps } from '../../deps';
import { invalid } from '../../http/errors';
import { mediaObject, mediaObjectsByIds } from '../objects/media-playable';
import { type PlayableRow, playableRowById } from './lookup';
import type { PlayableWrite } from './model';

const NO_OBJECT = 'names no object in cms-media';

/** `objects`: cms-media object ids; the ids not already stored must name an object (one query). */
export function objectsOf(deps: Deps, sent: readonly number[], stored: readonly number[]): number[] {
  const kept = new Set(stored);
  const fresh = sent.filter((id) => !kept.has(id));
  if (fresh.length > 0) {
    const found = mediaObjectsByIds(deps, fresh);
    const missing = sent.findIndex((id) => !kept.has(id) && !found.has(id));
    if (missing >= 0) throw invalid(`/objects/${missing}`, NO_OBJECT);
  }
  return [...sent];
}

/** `thumbId`: an image object of cms-media, or null; the one already stored is kept as is. */
export function thumbOf(deps: Deps, thumbId: number | null, stored: number | null): number | null {
  if (thumbId === null || thumbId === stored) return thumbId;
  const object = mediaObject(deps, thumbId);
  if (!object) throw invalid('/thumbId', NO_OBJECT);
  if (object.media && object.media.type !== 'image') throw invalid('/thumbId', 'must be an image object');
  return thumbId;
}

/**
 * `type`: `composition` is set only by the server, so a client may send it back unchanged for a
 * composition's playable but never turn another playable into one; a composition's playable keeps
 * its type. Any other value is stored as sent.
 */
export function typeOf(sent: string, row: PlayableRow | undefined): string | undefined {
  if (row?.type === 'composition') return undefined;
  if (sent === 'composition') throw invalid('/type', 'composition is set only by the server');
  return sent;
}

const NOT_A_TEMPLATE = 'must name a template playable of the same subsystem';

function templateByName(deps: Deps, subsystemId: number, group: string, name: string): PlayableRow {
  const matches = deps.db
    .select()
    .from(playables)
    .where(
      and(
        eq(playables.subsystemId, subsystemId),
        eq(playables.type, 'template'),
        eq(playables.groupName, group),
        eq(playables.displayName, name),
      ),
    )
    .limit(2)
    .all();
  const [only] = matches;
  if (!only) throw invalid('/templatePath', 'names no template playable of the same subsystem');
  if (matches.length > 1) throw invalid('/templatePath/_id', 'is required: group and name match several templates');
  return only;
}

/**
 * `templatePath` (§14): `_id` must be a `template` playable of the same subsystem (not the playable
 * itself); `group` and `name` are filled from it when omitted. A client of interface level 2.4 may
 * send only `group` and `name`: they must then name exactly one template of the subsystem.
 */
export function templatePathOf(
  deps: Deps,
  subsystemId: number,
  selfId: number | null,
  value: NonNullable<PlayableWrite['templatePath']> | null,
): TemplatePath | null {
  if (value === null) return null;
  let template: PlayableRow;
  if (value._id !== undefined) {
    const found = playableRowById(deps, value._id);
    if (!found || found.subsystemId !== subsystemId || found.type !== 'template' || found.id === selfId) {
      throw invalid('/templatePath/_id', NOT_A_TEMPLATE);
    }
    template = found;
  } else {
    if (value.name === undefined) throw invalid('/templatePath/_id', 'is required');
    template = templateByName(deps, subsystemId, value.group ?? '', value.name);
    if (template.id === selfId) throw invalid('/templatePath/_id', NOT_A_TEMPLATE);
  }
  return { group: value.group ?? template.groupName, name: value.name ?? template.displayName, _id: template.id };
}

/** The subsystem a new playable belongs to: `subsystemId` or `subsystemExternalId` (404 when unknown). */
export function subsystemOf(deps: Deps, body: PlayableWrite): SubsystemRow {
  const subsystem = subsystemNamedBy(deps, body);
  if (!subsystem) throw invalid('/subsystemId', 'is required');
  return subsystem;
}
