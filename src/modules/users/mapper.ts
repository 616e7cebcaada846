import { isoOrNull } from '../../clock';
import { entityMeta } from '../../http/entity';
import type { ControlPanelDto } from '../control-panels/model';
import type { UserRow } from './accounts';
import type { UserDto } from './model';

export interface UserExtras {
  roleIds: number[];
  permissions: readonly string[];
  /** The dashboard entries the user can open now (§1.2 rule 4); the stored list may hold more. */
  visiblePanels: number[];
  availablePanels?: ControlPanelDto[];
}

/** The only row → wire mapping of a user: never the password or its hash. */
export function toUserDto(row: UserRow, extras: UserExtras): UserDto {
  return {
    ...entityMeta(row, 'users'),
    username: row.username,
    displayName: row.displayName,
    email: row.email,
    roleIds: extras.roleIds,
    enabled: row.enabled,
    controlpanels: extras.visiblePanels,
    templateId: row.templateId,
    preferences: row.preferences,
    permissions: [...extras.permissions],
    lastLoginAt: isoOrNull(row.lastLoginAt),
    passwordChangedAt: isoOrNull(row.passwordChangedAt),
    ...(extras.availablePanels ? { availablePanels: extras.availablePanels } : {}),
  };
}
