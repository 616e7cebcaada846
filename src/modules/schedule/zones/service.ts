/** Zones (§11.1): timelines the schedule's playable items compete in. Zone 1 is built in. */
import { and, asc, eq, ne } from 'drizzle-orm';
import { changedFields } from '../../../core/changes';
import type { Principal } from '../../../core/principal';
import { findSubsystem } from '../../../core/subsystems';
import { scheduleBlocks, scheduleCalendars, scheduledItems, scheduleZones } from '../../../db/schema';
import type { Deps } from '../../../deps';
import { badRequest, conflict, invalid, notFound } from '../../../http/errors';
import { cleanName, numericId, unique } from '../../../http/fields';
import { type ListResult, type Page, paginate, whereFields } from '../../../http/lists';
import { emit } from '../../../realtime/emit';
import { announceScheduleWrite, markScheduleChanged, scheduleWrite } from '../snapshot/change-clock';
import { toZoneDto, type ZoneRow } from './mapper';
import { ZONE_FIELD_FILTERS, type ZoneCreate, type ZoneDto, type ZoneUpdate } from './model';
import { nextPaletteColor } from './palette';

/** Zone 1 and calendar 1, both "Main" (§11), exist from the first start. Idempotent. */
export function ensureScheduleBuiltIns(deps: Deps): void {
  const now = deps.clock.now();
  deps.db
    .insert(scheduleZones)
    .values({ id: 1, displayName: 'Main', members: [], color: nextPaletteColor([]), createdAt: now, updatedAt: now })
    .onConflictDoNothing()
    .run();
  deps.db
    .insert(scheduleCalendars)
    .values({
      id: 1,
      displayName: 'Main',
      closedDates: [],
      color: nextPaletteColor([]),
      createdAt: now,
      updatedAt: now,
    })
    .onConflictDoNothing()
    .run();
}

export function findZoneRow(deps: Deps, id: string | number): ZoneRow | undefined {
  const n = typeof id === 'number' ? id : numericId(id);
  return n === null ? undefined : deps.db.select().from(scheduleZones).where(eq(scheduleZones.id, n)).get();
}

function zoneRow(deps: Deps, id: string): ZoneRow {
  const row = findZoneRow(deps, id);
  if (!row) throw notFound('zone', id);
  return row;
}

/** Every zone, by `_id`. */
export function listZones(deps: Deps, query: object, page: Page): ListResult<ZoneDto> {
  const rows = deps.db.select().from(scheduleZones).orderBy(asc(scheduleZones.id)).all();
  return paginate(whereFields(rows.map(toZoneDto), query, ZONE_FIELD_FILTERS), page);
}

export function getZone(deps: Deps, id: string): ZoneDto {
  return toZoneDto(zoneRow(deps, id));
}

/** Members by `_id` or externalId → `_id`s (400 at `/members/<n>` for an unknown one). */
function memberIds(deps: Deps, members: ReadonlyArray<number | string>): number[] {
  return unique(
    members.map((key, i) => {
      const row = findSubsystem(deps, key);
      if (!row) throw invalid(`/members/${i}`, 'names no subsystem or player');
      return row.id;
    }),
  );
}

function assertNameFree(deps: Deps, name: string, exceptId: number): void {
  const taken = deps.db
    .select({ id: scheduleZones.id })
    .from(scheduleZones)
    .where(and(eq(scheduleZones.displayName, name), ne(scheduleZones.id, exceptId)))
    .get();
  if (taken) throw conflict('a zone with this displayName already exists');
}

export function createZone(deps: Deps, principal: Principal, body: ZoneCreate): ZoneDto {
  const displayName = cleanName(body.displayName);
  const members = memberIds(deps, body.members ?? []);
  assertNameFree(deps, displayName, 0);
  const colors = deps.db.select({ color: scheduleZones.color }).from(scheduleZones).all();
  const now = deps.clock.now();
  return scheduleWrite(deps, () => {
    const row = deps.db
      .insert(scheduleZones)
      .values({
        displayName,
        description: body.description ?? '',
        members,
        color: body.color?.toUpperCase() ?? nextPaletteColor(colors.map((c) => c.color)),
        createdAt: now,
        updatedAt: now,
      })
      .returning()
      .get();
    const dto = toZoneDto(row);
    announceScheduleWrite(deps, principal, 'zone', 'created', dto, ['displayName', 'description', 'members', 'color']);
    return dto;
  });
}

/**
 * Updates the fields present. Only fields whose value differs count (core/changes.ts): an update
 * that changes none (`{}`, the entity sent back as read) answers it as it is: `_updatedAt` and
 * `Last-Modified` stay, no event, no `schedule.changed`, no audit entry, no re-plan.
 */
export function updateZone(deps: Deps, principal: Principal, id: string, body: ZoneUpdate): ZoneDto {
  const row = zoneRow(deps, id);
  const changes: Partial<ZoneRow> = {};
  if (body.displayName !== undefined) {
    changes.displayName = cleanName(body.displayName);
    assertNameFree(deps, changes.displayName, row.id);
  }
  if (body.description !== undefined) changes.description = body.description;
  if (body.members !== undefined) changes.members = memberIds(deps, body.members);
  if (body.color !== undefined) changes.color = body.color.toUpperCase();
  const changed = changedFields(row, changes);
  if (changed.length === 0) return toZoneDto(row);
  return scheduleWrite(deps, () => {
    const updated =
      deps.db
        .update(scheduleZones)
        .set({ ...changes, updatedAt: deps.clock.now() })
        .where(eq(scheduleZones.id, row.id))
        .returning()
        .get() ?? row;
    const dto = toZoneDto(updated);
    announceScheduleWrite(deps, principal, 'zone', 'updated', dto, changed);
    return dto;
  });
}

/**
 * Deletes a zone; with `moveTo` its scheduled items and blocks move there first. Zone 1 and a zone
 * still used without `moveTo` are 409.
 */
export function deleteZone(deps: Deps, principal: Principal, id: string, moveTo?: string): void {
  const row = zoneRow(deps, id);
  if (row.id === 1) throw conflict('zone 1 is built in and cannot be deleted');
  let target: ZoneRow | undefined;
  if (moveTo !== undefined) {
    target = findZoneRow(deps, moveTo);
    if (!target || target.id === row.id)
      throw badRequest('moveTo must name another existing zone', [
        { path: '/moveTo', message: 'must name another existing zone' },
      ]);
  }
  const items = deps.db
    .select({ id: scheduledItems.id })
    .from(scheduledItems)
    .where(eq(scheduledItems.zoneId, row.id))
    .all().length;
  const blocks = deps.db
    .select({ id: scheduleBlocks.id })
    .from(scheduleBlocks)
    .where(eq(scheduleBlocks.zoneId, row.id))
    .all().length;
  if (!target && items + blocks > 0)
    throw conflict(`zone ${row.id} still has ${items} scheduled item(s) and ${blocks} block(s); use moveTo`);
  const now = deps.clock.now();
  scheduleWrite(deps, () => {
    if (target) {
      deps.db
        .update(scheduledItems)
        .set({ zoneId: target.id, updatedAt: now })
        .where(eq(scheduledItems.zoneId, row.id))
        .run();
      deps.db
        .update(scheduleBlocks)
        .set({ zoneId: target.id, updatedAt: now })
        .where(eq(scheduleBlocks.zoneId, row.id))
        .run();
    }
    deps.db.delete(scheduleZones).where(eq(scheduleZones.id, row.id)).run();
    announceScheduleWrite(deps, principal, 'zone', 'deleted', toZoneDto(row), [], {
      ...(target ? { movedTo: target.id, movedItems: items, movedBlocks: blocks } : {}),
    });
  });
}

/** A deleted subsystem or player leaves every zone it was a member of (emits `zone.updated` for each). */
export function dropZoneMember(deps: Deps, subsystemId: number): void {
  const zones = deps.db
    .select()
    .from(scheduleZones)
    .all()
    .filter((z) => z.members.includes(subsystemId));
  if (zones.length === 0) return;
  const now = deps.clock.now();
  scheduleWrite(deps, () => {
    for (const zone of zones) {
      deps.db
        .update(scheduleZones)
        .set({ members: zone.members.filter((m) => m !== subsystemId), updatedAt: now })
        .where(eq(scheduleZones.id, zone.id))
        .run();
    }
    for (const zone of zones) emit(deps, 'zone.updated', { _id: zone.id, changed: ['members'] });
    markScheduleChanged(deps, ['zones'], { parts: ['zones'] });
  });
}
