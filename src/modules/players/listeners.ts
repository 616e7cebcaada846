/**
 * A forced delete of media that players showed when nothing was scheduled (§13 "Never lost": then
 * `none` and a notification). The deleting unit clears those default states (default-states.ts) and
 * names the players in its `object.deleted` event; this listener, inside that unit, raises one
 * warning notification for the holders of `players:read` (key `default-state-cleared:object:<_id>`),
 * so nobody finds a screen gone blank without knowing why.
 */
import type { Deps } from '../../deps';
import { raiseNotification } from '../notifications/show';
import { roleIdsHolding } from '../roles/service';

interface Cleared {
  displayName: string;
}

function onObjectDeleted(deps: Deps, data: Record<string, unknown>): void {
  const cleared = data.clearedDefaultStates;
  if (!Array.isArray(cleared) || cleared.length === 0) return;
  const names = (cleared as Cleared[]).map((p) => p.displayName).join(', ');
  raiseNotification(deps, {
    key: `default-state-cleared:object:${String(data._id)}`,
    title: `Default state cleared on ${cleared.length} player(s)`,
    message: `Object ${String(data._id)} (${String(data.name)}) was deleted while ${cleared.length} player(s) showed it when nothing is scheduled: ${names}. Their default state is now none; set a new one at /api/v1/players/{id}/defaultState.`,
    severity: 'warning',
    roleIds: roleIdsHolding(deps, 'players:read'),
    expiresAt: null,
  });
}

export function installPlayerListeners(deps: Deps): () => void {
  return deps.work.react(['object.deleted'], (_type, data) => onObjectDeleted(deps, data));
}
