/**
 * What keeps compositions exact when something they follow changes (§15 rule 2), inside the unit of
 * that change (`deps.work.react`, ARCHITECTURE "Hot paths"), so a template's delete and its
 * compositions turning `broken` (their playables inactive) commit together:
 * - `playable.deleted` of a template: its compositions become `broken`, their playables inactive.
 * - `playable.created` / `playable.updated`: the compositions of that template follow it (its group
 *   and displayName as their path, its duration, its slot list for the status; broken when it is no
 *   template any more); and a template of the same subsystem, group and name as a broken
 *   composition's path re-links it (`templatePath._id` the new template, status recomputed, its
 *   playable active again). Slot choices and parameter values stay as they were, and the parameters
 *   it names, whose `playableId` the template's delete cleared, name the new template again
 *   (parameters/service.ts `relinkParameters`): references survive a delete and re-register. A
 *   parameter of the template that no composition names stays cleared: nothing remembers which
 *   template it had (its integration sets `playableId` again when it registers it).
 * - `object.uploaded` / `object.deleted` / `object.restored`: the compositions whose slots name that
 *   object recompute their status.
 * The platform makes these changes: they emit `composition.updated` (and `playable.updated` when the
 * produced playable changed) without an audit entry.
 */
import { and, eq, sql } from 'drizzle-orm';
import { changedFields } from '../../core/changes';
import { systemPrincipal } from '../../core/principal';
import { prepared } from '../../db/prepared';
import { compositions, type TemplatePath } from '../../db/schema';
import type { Deps } from '../../deps';
import { relinkParameters } from '../parameters/service';
import { type PlayableRow, playableRowById } from '../playables/lookup';
import { liveTemplate, pathOf, statusOf } from './checks';
import type { CompositionRow } from './mapper';
import { playableOf, savePlayable } from './playable';
import { emitComposition } from './service';

const PLAYABLE_EVENTS = ['playable.created', 'playable.updated', 'playable.deleted'];
const OBJECT_EVENTS = ['object.uploaded', 'object.deleted', 'object.restored'];

/** The compositions naming a template: asked at every playable write, so prepared once. */
function byTemplate(deps: Deps, templateId: number): CompositionRow[] {
  const query = prepared(deps, 'compositions.byTemplate', () =>
    deps.db
      .select()
      .from(compositions)
      .where(eq(compositions.templateId, sql.placeholder('templateId')))
      .prepare(),
  );
  return query.all({ templateId });
}

function brokenOf(deps: Deps, subsystemId: number): CompositionRow[] {
  return deps.db
    .select()
    .from(compositions)
    .where(and(eq(compositions.subsystemId, subsystemId), eq(compositions.status, 'broken')))
    .all();
}

function usingObject(deps: Deps, objectId: number): CompositionRow[] {
  return deps.db
    .select()
    .from(compositions)
    .where(
      sql`EXISTS (SELECT 1 FROM json_each(${compositions.slots}) j WHERE json_extract(j.value, '$.objectId') = ${objectId})`,
    )
    .all();
}

/**
 * Brings one composition in line with its template (`template`: live, or undefined while gone) and
 * its media; `path` the template it names from now on. Writes and emits only what changed.
 */
export function refreshComposition(
  deps: Deps,
  row: CompositionRow,
  template: PlayableRow | undefined,
  path: TemplatePath = template ? pathOf(template) : row.templatePath,
): void {
  const changes = { templatePath: path, templateId: path._id, status: statusOf(deps, template, row.slots) };
  const changed: string[] = changedFields(row, changes, ['templatePath', 'status']);
  const now = deps.clock.now();
  const stored =
    changed.length === 0
      ? row
      : (deps.db
          .update(compositions)
          .set({ ...changes, updatedAt: now })
          .where(eq(compositions.id, row.id))
          .returning()
          .get() ?? row);
  const playable = playableOf(deps, row);
  const saved = savePlayable(deps, systemPrincipal(), stored, template, row.status === 'broken', playable);
  if (saved.id !== row.playableId) {
    deps.db.update(compositions).set({ playableId: saved.id }).where(eq(compositions.id, row.id)).run();
    changed.push('playableId');
  }
  // The duration it shows is the playable's while it follows the template's.
  if (row.duration === null && saved.duration !== playable?.duration) changed.push('duration');
  if (changed.length > 0) emitComposition(deps, null, 'updated', { ...stored, playableId: saved.id }, changed);
}

function onPlayable(deps: Deps, type: string, id: number): void {
  for (const row of byTemplate(deps, id)) {
    refreshComposition(deps, row, type === 'playable.deleted' ? undefined : liveTemplate(deps, row.subsystemId, id));
  }
  if (type === 'playable.deleted') return;
  const template = playableRowById(deps, id);
  if (template?.type !== 'template') return;
  for (const row of brokenOf(deps, template.subsystemId)) {
    const { group, name } = row.templatePath;
    if (group !== template.groupName || name !== template.displayName) continue;
    refreshComposition(deps, row, template);
    relinkParameters(
      deps,
      row.parameters.map((p) => p.parameter),
      template.subsystemId,
      template.id,
    );
  }
}

function onObject(deps: Deps, id: number): void {
  for (const row of usingObject(deps, id)) {
    refreshComposition(deps, row, liveTemplate(deps, row.subsystemId, row.templateId));
  }
}

/** Installed once per daemon by boot's openDeps; returns the unsubscribe. */
export function installCompositionListeners(deps: Deps): () => void {
  const stopPlayables = deps.work.react(PLAYABLE_EVENTS, (type, data) => {
    if (typeof data._id === 'number') onPlayable(deps, type, data._id);
  });
  const stopObjects = deps.work.react(OBJECT_EVENTS, (_type, data) => {
    if (typeof data._id === 'number') onObject(deps, data._id);
  });
  return () => {
    stopPlayables();
    stopObjects();
  };
}
