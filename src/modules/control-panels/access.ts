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

/** Panels by id as DTOs, in the order of `ids`; unknown ids are skipped. */
export function panelsByIds(deps: Deps, ids: readonly number[]): ControlPanelDto[] {
  if (ids.length === 0) return [];
  const rows = deps.db
    .select({
      panel: controlPanels,
      subsystemExternalId: subsystems.externalId,
      registeredName: registered.displayName,
    })
    .from(controlPanels)
    .innerJoin(subsystems, eq(subsystems.id, controlPanels.subsystemId))
    .leftJoin(registered, eq(registered.id, controlPanels.registeredPanelId))
    .where(inArray(controlPanels.id, [...ids]))
    .all();
  const byId = new Map(
    rows.map((r) => [r.panel.id, toControlPanelDto(r.panel, r.subsystemExternalId, r.registeredName)]),
  );
  return ids.map((id) => byId.get(id)).filter((p): p is ControlPanelDto => p !== undefined);
}
