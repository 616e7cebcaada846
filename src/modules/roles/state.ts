/**
 * What the roles module keeps per daemon (`deps.roles`): the whole roles table, read on every
 * request, and the grants worked out from it. Data only: service.ts fills it and drops it on every
 * role write. Imports no Deps, so deps.ts can name it.
 */
import type { Permission } from '../../core/permissions';
import type { roles } from '../../db/schema';

export type RoleRow = typeof roles.$inferSelect;

export interface Grants {
  permissions: ReadonlySet<Permission>;
  integration: boolean;
}

export class RoleCaches {
  /** Every role by id; null until read, and again after a role write. */
  rows: Map<number, RoleRow> | null = null;
  /** grantsOf answers per role-id list, dropped with the rows; the sets are shared, never mutated. */
  grants = new Map<string, Grants>();

  /** Forgets everything: the next read loads the table again. */
  drop(): void {
    this.rows = null;
    this.grants = new Map();
  }
}
