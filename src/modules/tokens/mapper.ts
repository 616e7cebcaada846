import { isoOrNull } from '../../clock';
import { entityMeta } from '../../http/entity';
import type { TokenDto } from './model';
import type { TokenRow } from './service';

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
