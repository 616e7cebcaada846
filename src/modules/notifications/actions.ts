/**
 * Action buttons (§7): checking what a client sends, and pressing one (rule 3). An `event` action
 * fires the event as `POST /events/{id}/trigger` would and a `variable` action writes a value with
 * source `user`, both with the caller's own permissions; `acknowledge` is made by the platform only
 * (the alerts module reacts to `notification.action`).
 */
import { eq } from 'drizzle-orm';
import { writeAuditLog } from '../../core/platform-log';
import type { Principal } from '../../core/principal';
import { notifications, type StoredNotificationAction } from '../../db/schema';
import type { Deps } from '../../deps';
import { AppError, conflict, invalid } from '../../http/errors';
import { cleanName, jsonText } from '../../http/fields';
import { emit, transact } from '../../realtime/emit';
import { eventRow } from '../events/service';
import { triggerEvent } from '../events/trigger';
import { getVariable } from '../variables/service';
import { setVariableValueAsUser } from '../variables/value-service';
import { clearRow } from './clear';
import type { NotificationActionWrite, NotificationDto } from './model';
import { eventData, notificationDto, visibleRow } from './service';

/** False when the look-up answers 404; any other failure propagates. */
function exists(lookup: () => unknown): boolean {
  try {
    lookup();
    return true;
  } catch (err) {
    if (err instanceof AppError && err.errorCode === 'not_found') return false;
    throw err;
  }
}

const eventExists = (deps: Deps, id: number) => exists(() => eventRow(deps, id));
const variableExists = (deps: Deps, id: number) => exists(() => getVariable(deps, String(id)));

/** Values travel as strings: non-strings as their JSON text (`jsonText`), null as "" (C: Requests). */
function valueText(value: unknown, path: string): string {
  if (typeof value === 'string') return value;
  return value === null || value === undefined ? '' : jsonText(value, path);
}

function isHttpUrl(text: string): boolean {
  try {
    const url = new URL(text);
    return url.protocol === 'http:' || url.protocol === 'https:';
  } catch {
    return false;
  }
}

/** One action checked against its type; only the fields its type uses are kept. */
function checkAction(
  deps: Deps,
  a: NotificationActionWrite,
  path: string,
  platform: boolean,
): StoredNotificationAction {
  const base = { id: a.id, label: cleanName(a.label, `${path}/label`), type: a.type, clears: a.clears ?? true };
  switch (a.type) {
    case 'link':
      if (a.url === undefined) throw invalid(`${path}/url`, 'is required for a link action');
      if (!isHttpUrl(a.url)) throw invalid(`${path}/url`, 'must be an http or https URL');
      return { ...base, url: a.url };
    case 'event':
      if (a.eventId === undefined) throw invalid(`${path}/eventId`, 'is required for an event action');
      if (!eventExists(deps, a.eventId)) throw invalid(`${path}/eventId`, 'names an event that does not exist');
      return { ...base, eventId: a.eventId };
    case 'variable':
      if (a.variableId === undefined) throw invalid(`${path}/variableId`, 'is required for a variable action');
      if (!variableExists(deps, a.variableId))
        throw invalid(`${path}/variableId`, 'names a variable that does not exist');
      if (!('value' in a)) throw invalid(`${path}/value`, 'is required for a variable action');
      return { ...base, variableId: a.variableId, value: valueText(a.value, `${path}/value`) };
    case 'acknowledge':
      if (!platform) throw invalid(`${path}/type`, 'acknowledge actions are made by the platform only');
      return base;
    default:
      return base;
  }
}

/** At most 5 actions with unique ids, each valid for its type. */
export function checkActions(
  deps: Deps,
  actions: readonly NotificationActionWrite[],
  platform = false,
): StoredNotificationAction[] {
  if (actions.length > 5) throw invalid('/actions', 'must have at most 5 entries');
  const seen = new Set<string>();
  return actions.map((a, i) => {
    if (seen.has(a.id)) throw invalid(`/actions/${i}/id`, 'must be unique in the notification');
    seen.add(a.id);
    return checkAction(deps, a, `/actions/${i}`, platform);
  });
}

/** What pressing the button does; throws before anything is recorded when it cannot be done. */
async function perform(
  deps: Deps,
  principal: Principal,
  action: StoredNotificationAction,
): Promise<Record<string, unknown>> {
  switch (action.type) {
    case 'link':
      return { url: action.url ?? '' };
    case 'event': {
      const eventId = action.eventId ?? 0;
      if (!eventExists(deps, eventId)) throw conflict(`the event ${eventId} of this action no longer exists`);
      return { ...triggerEvent(deps, principal, String(eventId)) };
    }
    case 'variable': {
      const variableId = action.variableId ?? 0;
      if (!variableExists(deps, variableId))
        throw conflict(`the variable ${variableId} of this action no longer exists`);
      const variable = await setVariableValueAsUser(deps, principal, variableId, action.value ?? '');
      return {
        variableId: variable._id,
        lastValue: variable.lastValue,
        lastValueUpdatedAt: variable.lastValueUpdatedAt,
      };
    }
    default:
      return {};
  }
}

/** `POST /notifications/{id}/action`: runs it, records `lastAction`, clears when `clears`. */
export async function runAction(
  deps: Deps,
  principal: Principal,
  id: string,
  body: { action?: string; actionId?: string },
): Promise<{ notification: NotificationDto; result: Record<string, unknown> }> {
  const row = visibleRow(deps, principal, id);
  const actionId = body.action ?? body.actionId;
  if (actionId === undefined) throw invalid('/action', 'is required');
  const action = row.actions.find((a) => a.id === actionId);
  if (!action) throw invalid('/action', "matches none of this notification's actions");
  if (row.state === 'cleared') throw conflict('the notification is cleared');
  const result = await perform(deps, principal, action);
  const now = deps.clock.now();
  const by = principal.label;
  // The action's own effect (perform, async) has its own transaction; recording it is one change.
  return transact(deps, () => {
    deps.db
      .update(notifications)
      .set({ lastAction: { action: action.id, at: now, by, result }, updatedAt: now })
      .where(eq(notifications.id, row.id))
      .run();
    const acted = notificationDto(deps, row.id);
    emit(deps, 'notification.action', { ...eventData(acted), action: action.id, actionType: action.type, by, result });
    writeAuditLog(deps, principal, {
      key: 'notification.action',
      value: `notification ${row.id} action ${action.id} (${action.type}) run`,
      subsystemId: row.subsystemId,
      subsystemExternalId: acted.subsystemExternalId,
    });
    if (action.clears || action.type === 'clear') clearRow(deps, principal, row.id, by);
    return { notification: notificationDto(deps, row.id), result };
  });
}
