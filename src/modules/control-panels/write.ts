/**
 * Creating and updating control panels (§2): the collection upsert, updates by `{id}`, and the
 * copies a registered panel hands down to its available panels (rule 3).
 */
import { and, eq } from 'drizzle-orm';
import { changedFields } from '../../core/changes';
import { can, type Principal, requireOwnWrite, requirePermission } from '../../core/principal';
import type { SubsystemRow } from '../../core/subsystems';
import type { DbOrTx } from '../../db/client';
import { controlPanels } from '../../db/schema';
import type { Deps } from '../../deps';
import { forbidden, invalid, notFound } from '../../http/errors';
import { cleanName, nameOfRef } from '../../http/fields';
import { upsertTarget } from '../../http/upsert';
import { transact } from '../../realtime/emit';
import { connectionOf, requireIframeUrl, rolesOf, scaleOf, subsystemOf } from './checks';
import type { ControlPanelRow } from './mapper';
import type { ControlPanelDto, ControlPanelWrite, PanelLocationName } from './model';
import { announcePanel, authorizeWrite, emitPanel, findPanel, panelDto, panelRow } from './service';

type PanelChanges = Partial<Omit<ControlPanelRow, 'id' | 'createdAt' | 'updatedAt'>>;

/** The `changed` list of a created panel. */
const CREATED_FIELDS = [
  'displayName',
  'description',
  'type',
  'connection',
  'active',
  'roles',
  'scale',
  'openExternally',
];

/** Writes the changes that differ from the row; returns the changed wire field names. */
function applyChanges(db: DbOrTx, row: ControlPanelRow, changes: PanelChanges, now: number): string[] {
  // `displayNameSet` is storage only: no wire field of that name changes.
  const changed = changedFields(row, changes).filter((key) => key !== 'displayNameSet');
  const flagChanged = changes.displayNameSet !== undefined && changes.displayNameSet !== row.displayNameSet;
  if (changed.length === 0 && !flagChanged) return [];
  db.update(controlPanels)
    .set({ ...changes, updatedAt: now })
    .where(eq(controlPanels.id, row.id))
    .run();
  return changed;
}

function insertPanel(
  db: DbOrTx,
  now: number,
  values: Omit<typeof controlPanels.$inferInsert, 'createdAt' | 'updatedAt'>,
): ControlPanelRow {
  return db
    .insert(controlPanels)
    .values({ ...values, createdAt: now, updatedAt: now })
    .returning()
    .get();
}

function createRegistered(
  deps: Deps,
  principal: Principal,
  subsystem: SubsystemRow,
  body: ControlPanelWrite,
): ControlPanelDto {
  const type = body.type ?? 'iframe';
  const connection = connectionOf(body.connection ?? {});
  requireIframeUrl(type, connection);
  const scale = scaleOf({ enabled: false }, body.scale);
  const name = body.displayName == null ? null : cleanName(body.displayName);
  const externalRef = body.externalRef ?? null;
  return transact(deps, () => {
    const row = insertPanel(deps.db, deps.clock.now(), {
      location: 'registered',
      subsystemId: subsystem.id,
      externalRef,
      displayName: name ?? nameOfRef(externalRef) ?? '',
      description: body.description ?? '',
      type,
      connection,
      active: body.active ?? true,
      registeredPanelId: null,
      roles: [],
      scale,
      openExternally: body.openExternally ?? false,
    });
    // The default name of an unnamed panel without an externalRef that names it needs the `_id` it was just given.
    if (row.displayName === '') {
      deps.db
        .update(controlPanels)
        .set({ displayName: `Panel ${row.id}` })
        .where(eq(controlPanels.id, row.id))
        .run();
    }
    const panel = panelDto(deps, row.id);
    announcePanel(deps, principal, 'created', panel, CREATED_FIELDS);
    return panel;
  });
}

function createAvailable(deps: Deps, principal: Principal, body: ControlPanelWrite): ControlPanelDto {
  if (body.registeredPanelId == null) throw invalid('/registeredPanelId', 'is required');
  const source = deps.db.select().from(controlPanels).where(eq(controlPanels.id, body.registeredPanelId)).get();
  if (!source) throw notFound('registered panel', body.registeredPanelId);
  if (source.location !== 'registered') throw invalid('/registeredPanelId', 'must name a registered panel');
  const roles = rolesOf(deps, body.roles ?? []);
  const scale = scaleOf({ enabled: false }, body.scale);
  const name = body.displayName == null ? null : cleanName(body.displayName);
  return transact(deps, () => {
    const row = insertPanel(deps.db, deps.clock.now(), {
      location: 'available',
      subsystemId: source.subsystemId,
      externalRef: null,
      displayName: name ?? source.displayName,
      // The registered panel's own name, sent as it is offered, follows it like an absent one (updateAvailable).
      displayNameSet: name !== null && name !== source.displayName,
      description: body.description ?? '',
      type: source.type,
      connection: source.connection,
      active: body.active ?? true,
      registeredPanelId: source.id,
      roles,
      scale,
      openExternally: body.openExternally ?? false,
    });
    const panel = panelDto(deps, row.id);
    announcePanel(deps, principal, 'created', panel, CREATED_FIELDS);
    return panel;
  });
}

/** The fields both kinds write the same way. */
function commonChanges(row: ControlPanelRow, body: ControlPanelWrite): PanelChanges {
  const changes: PanelChanges = {};
  if (body.description !== undefined) changes.description = body.description;
  if (body.active !== undefined) changes.active = body.active;
  if (body.scale !== undefined) changes.scale = scaleOf(row.scale, body.scale);
  if (body.openExternally !== undefined) changes.openExternally = body.openExternally;
  return changes;
}

/** Updates a registered panel and hands `type`, `connection` and `displayName` down to its available panels. */
function updateRegistered(
  deps: Deps,
  principal: Principal,
  row: ControlPanelRow,
  body: ControlPanelWrite,
): ControlPanelDto {
  const changes = commonChanges(row, body);
  if (body.displayName !== undefined) {
    changes.displayName =
      body.displayName === null ? (nameOfRef(row.externalRef) ?? `Panel ${row.id}`) : cleanName(body.displayName);
  }
  if (body.type !== undefined) changes.type = body.type;
  if (body.connection !== undefined) changes.connection = connectionOf(body.connection);
  requireIframeUrl(changes.type ?? row.type, changes.connection ?? row.connection);
  const now = deps.clock.now();
  return transact(deps, () => {
    const changed = applyChanges(deps.db, row, changes, now);
    const copies = changed.some((k) => k === 'type' || k === 'connection' || k === 'displayName')
      ? copyToAvailable(deps, { ...row, ...changes }, now)
      : [];
    const panel = panelDto(deps, row.id);
    if (changed.length > 0) announcePanel(deps, principal, 'updated', panel, changed);
    for (const copy of copies) emitPanel(deps, 'updated', panelDto(deps, copy.id), copy.changed);
    return panel;
  });
}

/**
 * Hands a registered panel's `type`, `connection` and (unless set by a person) `displayName` down to
 * its available panels; returns each one's changed field names.
 */
function copyToAvailable(deps: Deps, next: ControlPanelRow, now: number): Array<{ id: number; changed: string[] }> {
  const dependents = deps.db
    .select()
    .from(controlPanels)
    .where(and(eq(controlPanels.location, 'available'), eq(controlPanels.registeredPanelId, next.id)))
    .all();
  return dependents.map((available) => {
    const copy: PanelChanges = { type: next.type, connection: next.connection };
    if (!available.displayNameSet) copy.displayName = next.displayName;
    return { id: available.id, changed: applyChanges(deps.db, available, copy, now) };
  });
}

/**
 * Updates an available panel; `type` and `connection` stay copies, a displayName sent by a person sticks.
 * A displayName equal to the one the panel shows while it follows its registered panel is the panel
 * sent back as read (C: Requests), not a name of its own: it is not written, and the panel keeps
 * following renames (it was pinned by every GET-then-PUT, and the next rename passed it by).
 */
function updateAvailable(
  deps: Deps,
  principal: Principal,
  row: ControlPanelRow,
  body: ControlPanelWrite,
): ControlPanelDto {
  const changes = commonChanges(row, body);
  if (body.roles !== undefined) changes.roles = rolesOf(deps, body.roles);
  if (body.displayName === null) {
    const source = row.registeredPanelId === null ? undefined : panelRow(deps, row.registeredPanelId);
    changes.displayName = source?.displayName ?? row.displayName;
    changes.displayNameSet = false;
  } else if (body.displayName !== undefined) {
    const name = cleanName(body.displayName);
    if (row.displayNameSet || name !== row.displayName) {
      changes.displayName = name;
      changes.displayNameSet = true;
    }
  }
  return transact(deps, () => {
    const changed = applyChanges(deps.db, row, changes, deps.clock.now());
    const panel = panelDto(deps, row.id);
    if (changed.length > 0) announcePanel(deps, principal, 'updated', panel, changed);
    return panel;
  });
}

function updatePanel(deps: Deps, principal: Principal, row: ControlPanelRow, body: ControlPanelWrite) {
  authorizeWrite(principal, row.location, row.subsystemId);
  return row.location === 'registered'
    ? updateRegistered(deps, principal, row, body)
    : updateAvailable(deps, principal, row, body);
}

/** `PUT`/`PATCH /controlpanels/{id}`: updates the writable fields present in the body. */
export function updatePanelById(
  deps: Deps,
  principal: Principal,
  id: string,
  body: ControlPanelWrite,
  location?: PanelLocationName,
): ControlPanelDto {
  return updatePanel(deps, principal, panelRow(deps, id, location), body);
}

/** The subsystem a registered panel is written for, checked for the caller. */
function registeringSubsystem(deps: Deps, principal: Principal, body: ControlPanelWrite): SubsystemRow {
  // Refuse before looking the subsystem up, so an unauthorised caller learns nothing about it.
  if (!can(principal, 'subsystems:write') && !principal.integration) {
    throw forbidden('this needs the subsystems:write permission');
  }
  const subsystem = subsystemOf(deps, body);
  requireOwnWrite(principal, 'subsystems:write', subsystem.id);
  return subsystem;
}

/** The registered panel of a subsystem with that externalRef, the upsert key. */
function registeredByRef(deps: Deps, subsystemId: number, externalRef: string): ControlPanelRow | undefined {
  return deps.db
    .select()
    .from(controlPanels)
    .where(
      and(
        eq(controlPanels.location, 'registered'),
        eq(controlPanels.subsystemId, subsystemId),
        eq(controlPanels.externalRef, externalRef),
      ),
    )
    .get();
}

/**
 * `POST`/`PUT /controlpanels` (C: Requests): updates the panel the body names by `_id` (when it
 * exists: an unknown `_id` is ignored; one of another kind than asked for is 404), or a registered
 * panel by subsystem + `externalRef`; else creates one of the kind the query (`location`, alias
 * `type`), else the body, says; without either, a body with `registeredPanelId` is an available
 * panel (only those have it), anything else a registered one.
 */
export function upsertPanel(
  deps: Deps,
  principal: Principal,
  body: ControlPanelWrite,
  queryLocation?: PanelLocationName,
): { entity: ControlPanelDto; created: boolean } {
  // A registered panel never has `registeredPanelId`: a body naming one is about an available panel.
  const asked = queryLocation ?? body.location ?? (body.registeredPanelId != null ? 'available' : undefined);
  let sub: SubsystemRow | undefined;
  const subsystem = () => (sub ??= registeringSubsystem(deps, principal, body));
  const ref = body.externalRef;
  const existing = upsertTarget(
    body._id,
    (id) => findPanel(deps, id, asked),
    () => (asked === 'available' || ref == null ? undefined : registeredByRef(deps, subsystem().id, ref)),
  );
  if (existing) return { entity: updatePanel(deps, principal, existing, body), created: false };
  if (asked === 'available') {
    requirePermission(principal, 'users:write');
    return { entity: createAvailable(deps, principal, body), created: true };
  }
  return { entity: createRegistered(deps, principal, subsystem(), body), created: true };
}
