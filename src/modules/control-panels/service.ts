/**
 * Control panels (§2), the reading and deleting part; creating and updating is in write.ts.
 *
 * Who may do what (rule 5) depends on the panel's kind, which only the row knows, so the routes
 * only require a credential and the checks live here: registered panels are written with
 * `subsystems:write` or by the integration role for its own subsystems, available panels with
 * `users:write`; everything is readable with `subsystems:read`, and anyone else sees exactly the
 * available panels they may open (rule 4).
 */
import { and, eq } from 'drizzle-orm';
import { audit } from '../../core/platform-log';
import { can, type Principal, requireOwnWrite, requirePermission } from '../../core/principal';
import { controlPanels } from '../../db/schema';
import type { Deps } from '../../deps';
import { forbidden, notFound } from '../../http/errors';
import { numericId } from '../../http/fields';
import { fuzzyMatch, type ListResult, type Page, paginate, whereFields } from '../../http/lists';
import { emit, transact } from '../../realtime/emit';
import { openablePanelIds, panelsByIds, selectPanelDtos } from './access';
import type { ControlPanelRow } from './mapper';
import {
  CONTROL_PANEL_FIELD_FILTERS,
  type ControlPanelDto,
  type ControlPanelListFilter,
  type PanelLocationName,
} from './model';

export type PanelEvent = 'created' | 'updated' | 'deleted';

/** The wire form of one stored panel. */
export function panelDto(deps: Deps, id: number): ControlPanelDto {
  const [panel] = panelsByIds(deps, [id]);
  if (!panel) throw notFound('controlpanel', id);
  return panel;
}

/** `controlpanel.<event>` with the §21 data: `_id`, `location`, `subsystemExternalId`, `externalRef`, `changed`. */
export function emitPanel(deps: Deps, event: PanelEvent, panel: ControlPanelDto, changed: readonly string[]): void {
  emit(deps, `controlpanel.${event}`, {
    _id: panel._id,
    location: panel.location,
    subsystemExternalId: panel.subsystemExternalId,
    ...(panel.externalRef === null ? {} : { externalRef: panel.externalRef }),
    changed: [...changed],
  });
}

/** emitPanel for the panel a request wrote, with the audit entry of a person or token (§0.4 rule 4). */
export function announcePanel(
  deps: Deps,
  principal: Principal,
  event: PanelEvent,
  panel: ControlPanelDto,
  changed: readonly string[],
): void {
  emitPanel(deps, event, panel, changed);
  audit(
    deps,
    principal,
    event,
    {
      kind: 'controlpanel',
      name: `control panel ${panel._id} (${panel.location}, ${panel.subsystemExternalId}/${panel.externalRef ?? panel.displayName})`,
      subsystemId: panel.subsystemId,
      subsystemExternalId: panel.subsystemExternalId,
    },
    changed,
  );
}

/**
 * The panel with that `_id`, if any; limited to one kind when the request says which
 * (`?type=available`): a panel of the other kind is 404, as a read by that id would be.
 */
export function findPanel(deps: Deps, id: number, location?: PanelLocationName): ControlPanelRow | undefined {
  const row = deps.db.select().from(controlPanels).where(eq(controlPanels.id, id)).get();
  if (row && location !== undefined && row.location !== location) throw notFound('controlpanel', id);
  return row;
}

/** The panel an `{id}` names, limited to one kind when the request says which (`?type=available`). */
export function panelRow(deps: Deps, id: string | number, location?: PanelLocationName): ControlPanelRow {
  const n = typeof id === 'number' ? id : numericId(id);
  const row = n === null ? undefined : findPanel(deps, n, location);
  if (!row) throw notFound('controlpanel', id);
  return row;
}

/** Rule 5 for writing one kind of panel: registered by its subsystem's writers, available by user admins. */
export function authorizeWrite(principal: Principal, location: PanelLocationName, subsystemId: number): void {
  if (location === 'available') requirePermission(principal, 'users:write');
  else requireOwnWrite(principal, 'subsystems:write', subsystemId);
}

function viewerOf(principal: Principal) {
  return { roleIds: principal.roleIds, permissions: principal.permissions };
}

const mayReadAll = (principal: Principal): boolean => can(principal, 'subsystems:read');

function matches(panel: ControlPanelDto, filter: ControlPanelListFilter, location?: PanelLocationName): boolean {
  return (
    (location === undefined || panel.location === location) &&
    (filter.subsystemExternalId === undefined || panel.subsystemExternalId === filter.subsystemExternalId) &&
    (filter.externalRef === undefined || panel.externalRef === filter.externalRef) &&
    (filter.registeredPanelId === undefined || panel.registeredPanelId === Number(filter.registeredPanelId)) &&
    (filter.active === undefined || panel.active === (filter.active === 'true')) &&
    fuzzyMatch(filter.fuzzy, panel.displayName, panel.externalRef, panel.description)
  );
}

/**
 * Panels in `_id` order, of one kind when `location` (alias `type`) says so, filtered as the query
 * asks. Without `subsystems:read` the list holds only the available panels the caller may open, and
 * asking for registered panels is refused.
 */
export function listPanels(
  deps: Deps,
  principal: Principal,
  filter: ControlPanelListFilter,
  page: Page,
): ListResult<ControlPanelDto> {
  const location = filter.location ?? filter.type;
  let visible: Set<number> | null = null;
  if (!mayReadAll(principal)) {
    if (location === 'registered') throw forbidden('this needs the subsystems:read permission');
    visible = new Set(openablePanelIds(deps, viewerOf(principal)));
  }
  const panels = selectPanelDtos(deps)
    .filter((p) => visible === null || visible.has(p._id))
    .filter((p) => matches(p, filter, location));
  return paginate(whereFields(panels, filter, CONTROL_PANEL_FIELD_FILTERS), page);
}

/** One panel of either kind (or of the kind asked for); without `subsystems:read` only one the caller may open. */
export function getPanel(deps: Deps, principal: Principal, id: string, location?: PanelLocationName): ControlPanelDto {
  const row = panelRow(deps, id, location);
  if (!mayReadAll(principal) && !openablePanelIds(deps, viewerOf(principal)).includes(row.id)) {
    throw forbidden('this needs the subsystems:read permission');
  }
  return panelDto(deps, row.id);
}

/**
 * Deletes a panel. A registered panel takes its available panels with it (rule 2, by the foreign
 * key's cascade); dashboards skip ids that no longer exist, so they leave every dashboard too.
 */
export function deletePanel(deps: Deps, principal: Principal, id: string, location?: PanelLocationName): void {
  const row = panelRow(deps, id, location);
  authorizeWrite(principal, row.location, row.subsystemId);
  const dependents =
    row.location === 'registered'
      ? deps.db
          .select({ id: controlPanels.id })
          .from(controlPanels)
          .where(and(eq(controlPanels.location, 'available'), eq(controlPanels.registeredPanelId, row.id)))
          .all()
          .map((r) => r.id)
      : [];
  const gone = panelsByIds(deps, [row.id, ...dependents]);
  transact(deps, () => {
    deps.db.delete(controlPanels).where(eq(controlPanels.id, row.id)).run();
    for (const panel of gone) {
      if (panel._id === row.id) announcePanel(deps, principal, 'deleted', panel, []);
      else emitPanel(deps, 'deleted', panel, []);
    }
  });
}
