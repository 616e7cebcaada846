import { isoOrNull } from '../../clock';
import type { tokens } from '../../db/schema';
import { entityMeta } from '../../http/entity';
import type { TokenDto } from './model';

export type TokenRow = typeof tokens.$inferSelect;

export function toTokenDto(row: TokenRow, secret?: string): TokenDto {
  return {
    ...entityMeta(row, 'tokens'),
    displayName: row.displayName,
    roleId: row.roleId,
    subsystemIds: row.subsystemIds,
    expiresAt: isoOrNull(row.expiresAt),
    prefix: row.prefix,
    createdBy: row.createdBy,
    lastUsedAt: isoOrNull(row.lastUsedAt),
    lastUsedFrom: row.lastUsedFrom,
    ...(secret === undefined ? {} : { token: secret }),
  };
}
