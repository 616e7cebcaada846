/**
 * `PUT /subsystems/{externalId}/heartbeat` (§3 rule 1): contact for the health monitor, the first
 * address into `metadata.ip_address`, and the queued messages in the answer. Nothing here waits on a
 * disk write beyond the monitor's status changes and throttled `lastContactedAt` (both batched by
 * the writer) and the delivery update when messages wait.
 */
import { isIP } from 'node:net';
import { isoOrNull } from '../../clock';
import { type Principal, requireOwnWrite } from '../../core/principal';
import { findSubsystem, forgetSubsystem, requireSubsystem, type SubsystemRow } from '../../core/subsystems';
import { updateRow } from '../../db/prepared';
import { subsystems } from '../../db/schema';
import type { Deps } from '../../deps';
import { settledUnlessDiskFull } from '../../http/errors';
import { jsonLargerThanKiB, METADATA_KIB } from '../../http/fields';
import { emit } from '../../realtime/emit';
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
 * `metadata.ip_address` is filled from a heartbeat's address while it is empty, never overwritten,
 * through the writer (a venue powering up fills thousands at once); the job reads the row again, so
 * two first heartbeats in one batch fill it once. Best effort: on a full disk the heartbeat still
 * answers (and hands over its messages) and the address is filled by a later one, since a refused
 * heartbeat would cut the device off. Null when there is nothing to fill. Decision: metadata the
 * client filled to its 16 KiB (§0.2) is not pushed past it: the address is not filled while it does
 * not fit, so the stored metadata stays within the limit and a whole object read and PUT back
 * (C: Requests) is not refused for a key the platform added.
 */
function fillIpAddress(deps: Deps, row: SubsystemRow, address: string | null): Promise<void> | null {
  if (address === null || isIP(address) === 0 || !lacksIpAddress(row)) return null;
  return settledUnlessDiskFull(deps.work.submit(() => storeIpAddress(deps, row.id, address)));
}

function lacksIpAddress(row: SubsystemRow): boolean {
  const current = row.metadata.ip_address;
  return current === undefined || current === '';
}

function storeIpAddress(deps: Deps, id: number, address: string): void {
  const row = findSubsystem(deps, id);
  if (!row || !lacksIpAddress(row)) return;
  const metadata = { ...row.metadata, ip_address: address };
  if (jsonLargerThanKiB(metadata, METADATA_KIB)) return;
  const updated = updateRow(deps, 'subsystems.heartbeat', subsystems, subsystems.id, row.id, {
    metadata,
    updatedAt: deps.clock.now(),
  });
  forgetSubsystem(deps, id);
  if (!updated) return;
  const live = liveHealth(deps, updated);
  emit(deps, `${updated.kind}.updated`, {
    _id: updated.id,
    externalId: updated.externalId,
    status: live.status,
    lastContactedAt: isoOrNull(live.lastContactedAt),
    changed: ['metadata'],
  });
}

/**
 * A heartbeat: contact, then every queued message, oldest first, each sent once. It answers from
 * memory unless something must be stored (a status change, the throttled last contact, the first
 * address, delivered messages); then it answers after that is committed. `request` is the heartbeat
 * itself: a delivered message's object links are built on the origin it was sent to (actions.ts).
 */
export function heartbeat(
  deps: Deps,
  principal: Principal,
  id: string,
  remoteAddress: string | null,
  request: Request,
): HeartbeatAnswer | Promise<HeartbeatAnswer> {
  const started = performance.now();
  const row = requireSubsystem(deps, id);
  // A player's heartbeat may come from a credential of its container (§0.3; `actsFor`).
  requireOwnWrite(principal, 'subsystems:write', row.id);
  const address = plainAddress(remoteAddress);
  const contact = recordContact(deps, row.id, { heartbeat: true, remoteAddress: address });
  const filled = fillIpAddress(deps, row, address);
  const answer = (): HeartbeatAnswer => {
    const messages = collectMessages(deps, row, request);
    return { message: messages, messages, queryTime: Math.round(performance.now() - started) };
  };
  if (contact === null && filled === null) return answer();
  return Promise.all([contact, filled]).then(answer);
}
