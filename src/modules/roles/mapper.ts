import { entityMeta } from '../../http/entity';
import type { RoleDto } from './model';
import type { RoleRow } from './state';

export function toRoleDto(row: RoleRow, counts: { userCount: number; tokenCount: number }): RoleDto {
  return {
    ...entityMeta(row, 'roles'),
    name: row.name,
    displayName: row.displayName,
    description: row.description,
    permissions: row.permissions,
    builtIn: row.builtIn,
    ...counts,
  };
}
