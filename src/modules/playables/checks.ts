/** The field rules of §14 that a schema cannot say; each throws the one validation error. */
import { and, eq } from 'drizzle-orm';
import { type SubsystemRow, subsystemNamedBy } from '../../core/subsystems';
import { playables, type TemplatePath } from '../../db/schema';
import type { Deps } from '../../deps';
import { invalid } from '../../http/errors';
import { type PlayableRow, playableRowById } from './lookup';
import type { PlayableWrite } from './model';

const UNKNOWN_OBJECT = 'names an object that does not exist';

/**
 * `objects` are cms-media object ids. Media objects are not part of this build, so no id names one
 * and any id is refused at its path; an empty list is fine.
 */
export function objectsOf(objects: readonly number[]): number[] {
  if (objects.length > 0) throw invalid('/objects/0', UNKNOWN_OBJECT);
  return [];
}

/** `thumbId`: an image object, or null; as with `objects`, no object exists to name yet. */
export function thumbOf(thumbId: number | null): null {
  if (thumbId !== null) throw invalid('/thumbId', UNKNOWN_OBJECT);
  return null;
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

const NOT_A_TEMPLATE = 'must be the _id of a template playable of the same subsystem';

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
