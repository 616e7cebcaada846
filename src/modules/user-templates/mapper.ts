import type { userTemplates } from '../../db/schema';
import { entityMeta } from '../../http/entity';
import type { UserTemplateDto } from './model';

export type UserTemplateRow = typeof userTemplates.$inferSelect;

/** The only row → wire mapping of a user template. */
export function toUserTemplateDto(row: UserTemplateRow): UserTemplateDto {
  return {
    ...entityMeta(row, 'usertemplates'),
    displayName: row.displayName,
    description: row.description,
    roleIds: row.roleIds,
    controlpanels: row.controlpanels,
    preferences: row.preferences,
    isDefault: row.isDefault,
  };
}
