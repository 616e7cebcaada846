/**
 * User templates (§1.5): starting points for new users. A template is copied into a user only at
 * creation; later edits or deletion never touch existing users (deleting one nulls their `templateId`
 * through the foreign key).
 *
 * A template gives roles, so it is treated like them (§1.2 roleIds, §1.3 rule 3; the contract is silent
 * on templates): giving roles to one needs every permission they hold, and so does changing or
 * deleting one (`templateToChange`), or a `users:write` holder could make the administrators' template
 * the default (the next user an administrator creates without roles would be an administrator) or
 * reshape its dashboard and preferences. Setting another template as the default, which takes the
 * flag from the current one, stays open to anyone covering the template set: new users then get less.
 */
import { and, asc, eq, ne } from 'drizzle-orm';
import { changedFields } from '../../core/changes';
import { type AuditSubject, audit } from '../../core/platform-log';
import { type Principal, requireCovers } from '../../core/principal';
import { userTemplates } from '../../db/schema';
import type { Deps } from '../../deps';
import { conflict, invalid, notFound } from '../../http/errors';
import { cleanName, mergeMetadata, numericId, unique } from '../../http/fields';
import { type ListResult, type Page, paginate, whereFields } from '../../http/lists';
import { emit, transact } from '../../realtime/emit';
import { panelsByIds } from '../control-panels/access';
import { assertGrantableRoles, builtInRoleId, grantsOf } from '../roles/service';
import { toUserTemplateDto, type UserTemplateRow } from './mapper';
import {
  USER_TEMPLATE_FIELD_FILTERS,
  type UserTemplateCreate,
  type UserTemplateDto,
  type UserTemplateUpdate,
} from './model';

/** `true`/`false` or their string forms (§0.2); undefined when absent. */
export function boolInput(value: boolean | 'true' | 'false' | undefined): boolean | undefined {
  return value === undefined ? undefined : value === true || value === 'true';
}

function rowOf(deps: Deps, id: string): UserTemplateRow {
  const n = numericId(id);
  const row = n === null ? undefined : deps.db.select().from(userTemplates).where(eq(userTemplates.id, n)).get();
  if (!row) throw notFound('user template', id);
  return row;
}

/** The template a change or delete acts on: the caller must hold everything its roles hold (403). */
function templateToChange(deps: Deps, principal: Principal, id: string): UserTemplateRow {
  const row = rowOf(deps, id);
  requireCovers(principal, grantsOf(deps, row.roleIds), `user template ${row.displayName}`);
  return row;
}

function checkNameFree(deps: Deps, displayName: string, exceptId: number | null): void {
  const clash = deps.db
    .select({ id: userTemplates.id })
    .from(userTemplates)
    .where(
      exceptId === null
        ? eq(userTemplates.displayName, displayName)
        : and(eq(userTemplates.displayName, displayName), ne(userTemplates.id, exceptId)),
    )
    .get();
  if (clash) throw conflict('another user template already has this displayName');
}

/** Each id must name an existing available panel: 400 at `/controlpanels/<n>`. */
function checkPanels(deps: Deps, ids: readonly number[]): number[] {
  const available = new Set(
    panelsByIds(deps, ids)
      .filter((p) => p.location === 'available')
      .map((p) => p._id),
  );
  ids.forEach((id, i) => {
    if (!available.has(id))
      throw invalid(`/controlpanels/${i}`, 'names an available control panel that does not exist');
  });
  return unique(ids);
}

function checkRoles(deps: Deps, principal: Principal, ids: readonly number[]): number[] {
  assertGrantableRoles(deps, principal, ids, '/roleIds');
  return unique(ids);
}

/** Every template, oldest first. */
export function listUserTemplates(deps: Deps, query: object, page: Page): ListResult<UserTemplateDto> {
  const rows = deps.db.select().from(userTemplates).orderBy(asc(userTemplates.id)).all();
  return paginate(whereFields(rows.map(toUserTemplateDto), query, USER_TEMPLATE_FIELD_FILTERS), page);
}

export function getUserTemplate(deps: Deps, id: string): UserTemplateDto {
  return toUserTemplateDto(rowOf(deps, id));
}

/**
 * The template a new user starts from: the one named (400 at `/templateId` when unknown), none for an
 * explicit null, else the default template if there is one.
 */
export function templateForNewUser(deps: Deps, templateId: number | null | undefined): UserTemplateRow | null {
  if (templateId === null) return null;
  if (templateId === undefined) {
    return deps.db.select().from(userTemplates).where(eq(userTemplates.isDefault, true)).get() ?? null;
  }
  const row = deps.db.select().from(userTemplates).where(eq(userTemplates.id, templateId)).get();
  if (!row) throw invalid('/templateId', 'names a user template that does not exist');
  return row;
}

/** Creates a template; `isDefault: true` takes the default from every other template in one transaction. */
export function createUserTemplate(deps: Deps, principal: Principal, body: UserTemplateCreate): UserTemplateDto {
  const displayName = cleanName(body.displayName);
  const roleIds = checkRoles(deps, principal, body.roleIds ?? [builtInRoleId(deps, 'viewer')]);
  const controlpanels = checkPanels(deps, body.controlpanels ?? []);
  const preferences = mergeMetadata({}, body.preferences ?? {}, '/preferences');
  const isDefault = boolInput(body.isDefault) ?? false;
  checkNameFree(deps, displayName, null);
  const now = deps.clock.now();
  const changed = ['displayName', 'description', 'roleIds', 'controlpanels', 'preferences', 'isDefault'];
  const row = transact(deps, () => {
    if (isDefault)
      deps.db
        .update(userTemplates)
        .set({ isDefault: false, updatedAt: now })
        .where(eq(userTemplates.isDefault, true))
        .run();
    const created = deps.db
      .insert(userTemplates)
      .values({
        displayName,
        description: body.description ?? '',
        roleIds,
        controlpanels,
        preferences,
        isDefault,
        createdAt: now,
        updatedAt: now,
      })
      .returning()
      .get();
    emit(deps, 'usertemplate.created', { _id: created.id, changed });
    audit(deps, principal, 'created', templateSubject(created), changed);
    return created;
  });
  return toUserTemplateDto(row);
}

/**
 * Updates the fields present; existing users made from it keep what they have. Only fields whose
 * value differs count (core/changes.ts): an update that changes none (`{}`, the template sent back
 * as read) answers it as it is, `_updatedAt` kept, no event, no audit entry.
 */
export function updateUserTemplate(
  deps: Deps,
  principal: Principal,
  id: string,
  body: UserTemplateUpdate,
): UserTemplateDto {
  const row = templateToChange(deps, principal, id);
  const changes: Partial<UserTemplateRow> = {};
  if (body.displayName !== undefined) {
    const displayName = cleanName(body.displayName);
    checkNameFree(deps, displayName, row.id);
    changes.displayName = displayName;
  }
  if (body.description !== undefined) changes.description = body.description;
  if (body.roleIds !== undefined) changes.roleIds = checkRoles(deps, principal, body.roleIds);
  if (body.controlpanels !== undefined) changes.controlpanels = checkPanels(deps, body.controlpanels);
  if (body.preferences !== undefined) {
    changes.preferences = mergeMetadata(row.preferences, body.preferences, '/preferences');
  }
  const isDefault = boolInput(body.isDefault);
  if (isDefault !== undefined) changes.isDefault = isDefault;
  const changed = changedFields(row, changes);
  if (changed.length === 0) return toUserTemplateDto(row);
  const now = deps.clock.now();
  const updated = transact(deps, () => {
    if (isDefault) {
      deps.db
        .update(userTemplates)
        .set({ isDefault: false, updatedAt: now })
        .where(and(eq(userTemplates.isDefault, true), ne(userTemplates.id, row.id)))
        .run();
    }
    const stored = deps.db
      .update(userTemplates)
      .set({ ...changes, updatedAt: now })
      .where(eq(userTemplates.id, row.id))
      .returning()
      .get();
    emit(deps, 'usertemplate.updated', { _id: row.id, changed });
    audit(deps, principal, 'updated', templateSubject(row), changed);
    return stored;
  });
  return toUserTemplateDto(updated ?? row);
}

/** Deletes a template; users made from it keep everything and their `templateId` becomes null. */
export function deleteUserTemplate(deps: Deps, principal: Principal, id: string): void {
  const row = templateToChange(deps, principal, id);
  transact(deps, () => {
    deps.db.delete(userTemplates).where(eq(userTemplates.id, row.id)).run();
    emit(deps, 'usertemplate.deleted', { _id: row.id, changed: [] });
    audit(deps, principal, 'deleted', templateSubject(row), []);
  });
}

/** How the `usertemplate.<change>` audit entries name a template. */
function templateSubject(row: UserTemplateRow): AuditSubject {
  return { kind: 'usertemplate', name: `user template ${row.id} (${row.displayName})` };
}
