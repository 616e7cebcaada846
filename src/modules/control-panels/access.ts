/**
 * Who may open which available panel (§2 rule 4): the panel and its registered panel are active and
 * the user holds one of the panel's `roles`, or holds `users:write`.
 */
import { and, eq, inArray } from 'drizzle-orm';
import { alias } from 'drizzle-orm/sqlite-core';
import { controlPanels, subsystems } from '../../db/schema';
import type { Deps } from '../../deps';
import { toControlPanelDto } from './mapper';
import type { ControlPanelDto } from './model';

export interface PanelViewer {
  roleIds: readonly number[];
  permissions: ReadonlySet<string>;
}

const registered = alias(controlPanels, 'registered');

/** Ids of every available panel the viewer may open, in `_id` order. */
export function openablePanelIds(deps: Deps, viewer: PanelViewer): number[] {
  const rows = deps.db
    .select({ id: controlPanels.id, roles: controlPanels.roles })
    .from(controlPanels)
    .innerJoin(registered, eq(registered.id, controlPanels.registeredPanelId))
    .where(and(eq(controlPanels.location, 'available'), eq(controlPanels.active, true), eq(registered.active, true)))
    .orderBy(controlPanels.id)
    .all();
  const admin = viewer.permissions.has('users:write');
  return rows.filter((r) => admin || r.roles.some((role) => viewer.roleIds.includes(role))).map((r) => r.id);
}

/** Panels as DTOs in `_id` order: all of them, or those with the given ids. */
export function selectPanelDtos(deps: Deps, ids?: readonly number[]): ControlPanelDto[] {
  return deps.db
    .select({
      panel: controlPanels,
      subsystemExternalId: subsystems.externalId,
      registeredName: registered.displayName,
    })
    .from(controlPanels)
    .innerJoin(subsystems, eq(subsystems.id, controlPanels.subsystemId))
    .leftJoin(registered, eq(registered.id, controlPanels.registeredPanelId))
    .where(ids === undefined ? undefined : inArray(controlPanels.id, [...ids]))
    .orderBy(controlPanels.id)
    .all()
    .map((r) => toControlPanelDto(r.panel, r.subsystemExternalId, r.registeredName));
}

/** Panels by id as DTOs, in the order of `ids`; unknown ids are skipped. */
export function panelsByIds(deps: Deps, ids: readonly number[]): ControlPanelDto[] {
  if (ids.length === 0) return [];
  const byId = new Map(selectPanelDtos(deps, ids).map((p) => [p._id, p]));
  return ids.map((id) => byId.get(id)).filter((p): p is ControlPanelDto => p !== undefined);
}
