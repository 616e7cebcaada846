/**
 * Users (§1.2): accounts for the people who operate the platform.
 */
import type { Deps } from '../../deps';
import { openablePanelIds } from '../control-panels/access';
import { grantsOf } from '../roles/service';
import { roleIdsOf, type UserRow } from './accounts';
import { toUserDto } from './mapper';
import type { UserDto } from './model';

/** The wire form of a user, with dashboard entries the user cannot open hidden (rule 4). */
export function userDto(deps: Deps, row: UserRow): UserDto {
  const roleIds = roleIdsOf(deps, row.id);
  const { permissions } = grantsOf(deps, roleIds);
  const openable = new Set(openablePanelIds(deps, { roleIds, permissions }));
  return toUserDto(row, {
    roleIds,
    permissions: [...permissions],
    visiblePanels: row.controlpanels.filter((id) => openable.has(id)),
  });
}
