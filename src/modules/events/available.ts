/**
 * The legacy bulk call `PUT /subsystems/{externalId}/events/_available` (§3): the subsystem lists
 * the events it offers now — by `commands`, or else by `ids` (an event `_id`, or an externalRef when
 * sent as text) — and every other event of it is marked unavailable. With `commands` present, `ids`
 * is ignored whatever it holds: the 2023 field driver sends both, its `ids` being positions in its
 * own list (0, 1, …), which would name the wrong events. One transaction; an `event.updated` for
 * each event whose flag changed.
 */
import { and, eq, inArray } from 'drizzle-orm';
import { type Principal, requireOwnWrite } from '../../core/principal';
import { requireSubsystem } from '../../core/subsystems';
import { events } from '../../db/schema';
import type { Deps } from '../../deps';
import { longerThan } from '../../http/characters';
import { invalid } from '../../http/errors';
import { transact } from '../../realtime/emit';
import type { EventDto } from './model';
import { announce, eventDto } from './service';

export interface AvailableEventsBody {
  commands?: string[];
  ids?: unknown[];
}

/** `ids` when they are what the call goes by: positive integers (`_id`) or text (externalRef). */
function idsOf(ids: readonly unknown[]): Array<number | string> {
  return ids.map((v, i) => {
    if (typeof v === 'number' && Number.isInteger(v) && v >= 1) return v;
    if (typeof v === 'string' && !longerThan(v, 256)) return v;
    throw invalid(`/ids/${i}`, 'must be an event _id (an integer of 1 or more) or externalRef (text)');
  });
}

export function setAvailableEvents(
  deps: Deps,
  principal: Principal,
  subsystemKey: string,
  body: AvailableEventsBody,
): EventDto[] {
  const subsystem = requireSubsystem(deps, subsystemKey);
  requireOwnWrite(principal, 'events:write', subsystem.id);
  if (body.commands === undefined && body.ids === undefined) throw invalid('/commands', 'or ids is required');
  const commands = new Set(body.commands ?? []);
  const named = body.commands === undefined ? idsOf(body.ids ?? []) : [];
  const ids = new Set(named.filter((v): v is number => typeof v === 'number'));
  const refs = new Set(named.filter((v): v is string => typeof v === 'string'));
  const rows = deps.db.select().from(events).where(eq(events.subsystemId, subsystem.id)).orderBy(events.id).all();
  const wanted = (r: (typeof rows)[number]) => commands.has(r.command) || ids.has(r.id) || refs.has(r.externalRef);
  const flips = rows.filter((r) => wanted(r) !== r.availableInSubsystem);
  const now = deps.clock.now();
  transact(deps, () => {
    for (const value of [true, false]) {
      const changed = flips.filter((r) => wanted(r) === value).map((r) => r.id);
      if (changed.length === 0) continue;
      deps.db
        .update(events)
        .set({ availableInSubsystem: value, updatedAt: now })
        .where(and(eq(events.subsystemId, subsystem.id), inArray(events.id, changed)))
        .run();
    }
    for (const row of flips) {
      announce(
        deps,
        principal,
        'updated',
        {
          _id: row.id,
          externalRef: row.externalRef,
          subsystemId: subsystem.id,
          subsystemExternalId: subsystem.externalId,
        },
        ['availableInSubsystem'],
      );
    }
  });
  return rows.map((r) => eventDto(deps, r.id));
}
