/**
 * Entries the platform writes itself (§9): `security` (sign-ins), `audit` (configuration changes)
 * and `system` (daemon start and stop, migrations …). The HTTP resource of §9 comes with its own issue.
 */

import { logs } from '../../db/schema';
import type { Deps } from '../../deps';
import { emit } from '../../realtime/emit';

export type PlatformCategory = 'security' | 'audit' | 'system';
export type Severity = 'debug' | 'info' | 'warning' | 'error' | 'critical';

export interface PlatformEntry {
  category: PlatformCategory;
  key: string;
  value: string;
  severity?: Severity;
  createdBy?: string | null;
  createdByType?: 'user' | 'system' | 'subsystem';
  postedBy?: string | null;
  host?: string | null;
}

export function writePlatformLog(deps: Deps, entry: PlatformEntry): void {
  const now = deps.clock.now();
  const row = deps.db
    .insert(logs)
    .values({
      time: now,
      key: entry.key,
      value: entry.value,
      severity: entry.severity ?? 'info',
      category: entry.category,
      createdBy: entry.createdBy ?? 'system',
      createdByType: entry.createdByType ?? 'system',
      tags: [],
      host: entry.host ?? null,
      postedBy: entry.postedBy ?? null,
      createdAt: now,
      updatedAt: now,
    })
    .returning({ id: logs.id })
    .get();
  emit(deps, 'log.created', {
    _id: row.id,
    key: entry.key,
    category: entry.category,
    severity: entry.severity ?? 'info',
  });
}
