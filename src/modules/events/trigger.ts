/**
 * Firing an event by hand (§5 `POST /events/{id}/trigger`, rule 1): `schedule.item.start` to every
 * push connection subscribed to the subsystem, with start = end = now and no end message. A
 * `zoneId` naming no zone is 400 at `/zoneId` before anything is sent or stamped, as for instant
 * play and actions (decision: §5 is silent; a driver must never be told of a zone that does not exist).
 */
import { eq } from 'drizzle-orm';
import { iso } from '../../clock';
import { writeAuditLog, writePlatformLog } from '../../core/platform-log';
import { type Principal, requireOwnWrite } from '../../core/principal';
import { events } from '../../db/schema';
import type { Deps } from '../../deps';
import { conflict, invalid } from '../../http/errors';
import { emit, transact } from '../../realtime/emit';
import { deliveryTargetsNow } from '../schedule/snapshot/usage';
import { findZoneRow } from '../schedule/zones/service';
import { eventDto, eventRow } from './service';

export interface Triggered {
  eventId: number;
  firedAt: string;
  deliveredTo: string[];
}

export function triggerEvent(deps: Deps, principal: Principal, id: string, zoneId = 1): Triggered {
  const row = eventRow(deps, id);
  requireOwnWrite(principal, 'events:write', row.subsystemId);
  if (!findZoneRow(deps, zoneId)) throw invalid('/zoneId', 'names no zone');
  if (!row.active) throw conflict('the event is inactive and cannot be triggered');
  const event = eventDto(deps, row.id);
  const now = deps.clock.now();
  const firedAt = iso(now);
  // A container's event marked eventPlayer goes to the zone's players, one line each (§11.6 rule 11).
  const targets = deliveryTargetsNow(
    deps,
    'EVENT',
    { subsystemId: row.subsystemId, subsystemExternalId: event.subsystemExternalId, eventPlayer: row.eventPlayer },
    zoneId,
  );
  const deliveredTo = targets.filter(
    (target) =>
      deps.push.publish([target], 'schedule.item.start', {
        itemType: 'EVENT',
        command: event.command,
        subsystemExternalId: target,
        externalRef: event.externalRef,
        itemId: event._id,
        zoneId,
        startTime: firedAt,
        endTime: firedAt,
      }).length > 0,
  );
  const where = { subsystemId: row.subsystemId, subsystemExternalId: event.subsystemExternalId };
  // The push above is not stored; the stamp, its event and the log entries commit together (§10 rule 3).
  transact(deps, () => {
    deps.db.update(events).set({ lastTriggeredAt: now }).where(eq(events.id, row.id)).run();
    emit(deps, 'event.triggered', {
      _id: event._id,
      externalRef: event.externalRef,
      subsystemExternalId: event.subsystemExternalId,
      source: 'manual',
      deliveredTo,
    });
    if (deliveredTo.length === 0) {
      writePlatformLog(deps, {
        category: 'system',
        severity: 'warning',
        key: 'event.undelivered',
        value: `event ${event._id} (${event.subsystemExternalId}/${event.externalRef}) fired by hand but no push connection is subscribed to ${targets.join(', ')}`,
        ...where,
      });
    }
    writeAuditLog(deps, principal, {
      key: 'event.triggered',
      value: `event ${event._id} (${event.subsystemExternalId}/${event.externalRef}) triggered in zone ${zoneId}`,
      ...where,
    });
  });
  return { eventId: event._id, firedAt, deliveredTo };
}
