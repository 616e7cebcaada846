/**
 * A user's dashboard (§1.2): an ordered list of available panels. Entries the user can no longer open
 * are hidden from reads but kept in storage (rule 4), so a write that replaces the visible list puts
 * the hidden ones back where they were.
 */
import { eq } from 'drizzle-orm';
import { audit } from '../../core/platform-log';
import type { Principal } from '../../core/principal';
import { users } from '../../db/schema';
import type { Deps } from '../../deps';
import { invalid } from '../../http/errors';
import { unique } from '../../http/fields';
import { type ListResult, type Page, paginate } from '../../http/lists';
import { emit, transact } from '../../realtime/emit';
import { openablePanelIds, panelsByIds } from '../control-panels/access';
import type { ControlPanelDto } from '../control-panels/model';
import { grantsOf } from '../roles/service';
import { roleIdsOf } from './accounts';
import type { DashboardBody } from './model';
import { targetUser, userSubject, userToChange } from './service';

/** Ids of the available panels a user holding these roles may open (§2 rule 4). */
export function openableFor(deps: Deps, roleIds: readonly number[]): Set<number> {
  return new Set(openablePanelIds(deps, { roleIds, permissions: grantsOf(deps, roleIds).permissions }));
}

/** Each id must be a panel the user may open: 400 at `<path>/<n>`. Duplicates dropped. */
export function checkDashboard(ids: readonly number[], openable: ReadonlySet<number>, path: string): number[] {
  ids.forEach((id, i) => {
    if (!openable.has(id)) throw invalid(`${path}/${i}`, 'names a panel this user may not open');
  });
  return unique(ids);
}

/**
 * The list to store: the new visible entries, with each hidden entry of the old list (one the user
 * cannot open now but that still exists) put back after the entry it followed before.
 */
export function withHiddenEntries(
  deps: Deps,
  stored: readonly number[],
  visible: readonly number[],
  openable: ReadonlySet<number>,
): number[] {
  const hiddenIds = stored.filter((id) => !openable.has(id) && !visible.includes(id));
  const hidden = new Set(
    panelsByIds(deps, hiddenIds)
      .filter((p) => p.location === 'available')
      .map((p) => p._id),
  );
  const out = [...visible];
  stored.forEach((id, i) => {
    if (!hidden.has(id) || out.includes(id)) return;
    const before = stored
      .slice(0, i)
      .reverse()
      .find((prev) => out.includes(prev));
    out.splice(before === undefined ? 0 : out.indexOf(before) + 1, 0, id);
  });
  return out;
}

function visiblePanels(deps: Deps, stored: readonly number[], roleIds: readonly number[]): ControlPanelDto[] {
  const openable = openableFor(deps, roleIds);
  return panelsByIds(
    deps,
    stored.filter((id) => openable.has(id)),
  );
}

/** The user's dashboard panels in order, without the ones they cannot open now. */
export function getDashboard(deps: Deps, principal: Principal, id: string, page: Page): ListResult<ControlPanelDto> {
  const row = targetUser(deps, principal, id, 'users:read');
  return paginate(visiblePanels(deps, row.controlpanels, roleIdsOf(deps, row.id)), page);
}

/** Replaces the dashboard; every id must be a panel the user may open (400), hidden entries are kept. */
export function replaceDashboard(deps: Deps, principal: Principal, id: string, body: DashboardBody): ControlPanelDto[] {
  const row = userToChange(deps, principal, id);
  const roleIds = roleIdsOf(deps, row.id);
  const openable = openableFor(deps, roleIds);
  const [ids, path] = Array.isArray(body) ? [body, ''] : [body.controlpanels, '/controlpanels'];
  const visible = checkDashboard(ids, openable, path);
  const controlpanels = withHiddenEntries(deps, row.controlpanels, visible, openable);
  transact(deps, () => {
    deps.db.update(users).set({ controlpanels, updatedAt: deps.clock.now() }).where(eq(users.id, row.id)).run();
    emit(deps, 'user.updated', { _id: row.id, changed: ['controlpanels'] });
    audit(deps, principal, 'updated', userSubject(row), ['controlpanels']);
  });
  return visiblePanels(deps, controlpanels, roleIds);
}

/** Every available panel the user may open (§2 rule 4), in `_id` order, paged. */
export function availablePanelsOf(
  deps: Deps,
  principal: Principal,
  id: string,
  page: Page,
): ListResult<ControlPanelDto> {
  const row = targetUser(deps, principal, id, 'users:read');
  return paginate(panelsByIds(deps, [...openableFor(deps, roleIdsOf(deps, row.id))]), page);
}
