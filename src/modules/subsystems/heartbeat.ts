/**
 * `PUT /subsystems/{externalId}/heartbeat` (§3 rule 1): contact for the health monitor, the first
 * address into `metadata.ip_address`, and the queued messages in the answer. Nothing here waits on a
 * disk write beyond the monitor's throttled `lastContactedAt` and the delivery update when messages wait.
 */
import { isIP } from 'node:net';
import { eq } from 'drizzle-orm';
import { isoOrNull } from '../../clock';
import { type Principal, requireOwnWrite } from '../../core/principal';
import { requireSubsystem, type SubsystemRow } from '../../core/subsystems';
import { subsystems } from '../../db/schema';
import type { Deps } from '../../deps';
import { unlessDiskFull } from '../../http/errors';
import { emit, transact } from '../../realtime/emit';
import { collectMessages } from './actions';
import { liveHealth, recordContact } from './health';
import type { HeartbeatAnswer } from './model';

/** An IPv4 address written as IPv6 (`::ffff:10.0.0.5`, as dual-stack sockets report it) in its IPv4 form. */
export function plainAddress(address: string | null): string | null {
  if (address === null) return null;
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(address);
  return mapped?.[1] ?? address;
}

/**
 * `metadata.ip_address` is filled from a heartbeat's address while it is empty, never overwritten.
 * Best effort: on a full disk the heartbeat still answers (and hands over its messages) and the
 * address is filled by a later one, since a refused heartbeat would cut the device off.
 */
function fillIpAddress(deps: Deps, row: SubsystemRow, address: string | null): void {
  const current = row.metadata.ip_address;
  if (address === null || isIP(address) === 0 || (current !== undefined && current !== '')) return;
  unlessDiskFull(() => storeIpAddress(deps, row, address));
}

function storeIpAddress(deps: Deps, row: SubsystemRow, address: string): void {
  transact(deps, () => {
    const updated = deps.db
      .update(subsystems)
      .set({ metadata: { ...row.metadata, ip_address: address }, updatedAt: deps.clock.now() })
      .where(eq(subsystems.id, row.id))
      .returning()
      .get();
    if (!updated) return;
    const live = liveHealth(deps, updated);
    emit(deps, 'subsystem.updated', {
      _id: updated.id,
      externalId: updated.externalId,
      status: live.status,
      lastContactedAt: isoOrNull(live.lastContactedAt),
      changed: ['metadata'],
    });
  });
}

/** A heartbeat: contact, then every queued message, oldest first, each sent once. */
export function heartbeat(deps: Deps, principal: Principal, id: string, remoteAddress: string | null): HeartbeatAnswer {
  const started = performance.now();
  const row = requireSubsystem(deps, id);
  requireOwnWrite(principal, 'subsystems:write', row.id);
  const address = plainAddress(remoteAddress);
  recordContact(deps, row.id, { heartbeat: true, remoteAddress: address });
  fillIpAddress(deps, row, address);
  const messages = collectMessages(deps, row);
  return { message: messages, messages, queryTime: Math.round(performance.now() - started) };
}
