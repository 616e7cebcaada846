/**
 * Previewing a composition before it goes live (§15 rule 3, §3 "Heartbeat answer"): a `previewPlay`
 * `{playable: <its playable in instant form, §14>, controlPanelId?}` queued for the target's next
 * heartbeat answer, and a `previewStop` `{}` to end it.
 *
 * Decisions where §15 is silent:
 * - The target is a subsystem or player by `_id` or externalId (default: the composition's own
 *   subsystem; for a stop, where its latest preview went, state.ts); unknown → 404. A credential
 *   limited to some subsystems must act for the composition's subsystem and for the target.
 * - A `broken` composition (its template gone) cannot be rendered: its preview is 409. A draft may
 *   be previewed; that is what previews are for. The stop is always queued.
 * - `controlPanelId` must name a control panel that exists (§2, registered or available: a panel the
 *   preview is shown on); one that names none (never made, or deleted since the console listed it)
 *   is 400 at `/controlPanelId` and nothing is queued, since the target would be told to show the
 *   preview on a panel nobody can open. §15's error table gives 404 only to the composition and the
 *   target, and 400 applies to every field rule (§0.1), so a body field naming nothing is a 400,
 *   as an `objectId` naming nothing is (§3). Which subsystem the panel belongs to is not checked:
 *   the target decides where it shows a preview. A stop ignores it (its payload is empty).
 * - Only the preview emits `composition.preview` `{_id, externalRef?, subsystemExternalId,
 *   targetSubsystemId, targetSubsystemExternalId, controlPanelId?, uuid}`; both write an audit entry
 *   for a person or token (`composition.preview`, `composition.preview_stop`).
 */
import { writeAuditLog } from '../../core/platform-log';
import { type Principal, requireOwnWrite } from '../../core/principal';
import { findSubsystem, requireSubsystem, type SubsystemRow } from '../../core/subsystems';
import type { Deps } from '../../deps';
import { conflict, invalid, notFound } from '../../http/errors';
import { emit, transact } from '../../realtime/emit';
import { findPanel } from '../control-panels/service';
import { findInstantPlayable } from '../playables/lookup';
import { queueMessage } from '../subsystems/actions';
import { liveHealth } from '../subsystems/health';
import { toQueuedAction } from '../subsystems/mapper';
import type { QueuedActionDto } from '../subsystems/model';
import type { PreviewRequest } from './model';
import { type CompositionRow, ownerExternalId, requireComposition } from './service';

/** The target named, else (for a stop) where the latest preview went (state.ts), else its own subsystem. */
function targetOf(deps: Deps, row: CompositionRow, body: PreviewRequest, stop: boolean): SubsystemRow {
  if (body.targetSubsystemId === undefined) {
    const previewed = stop ? deps.previews.targetOf(row.id, row.playableId) : undefined;
    const found = previewed === undefined ? undefined : findSubsystem(deps, previewed);
    return found ?? requireSubsystem(deps, row.subsystemId);
  }
  const target = findSubsystem(deps, body.targetSubsystemId);
  if (!target) throw notFound('target subsystem', body.targetSubsystemId);
  return target;
}

/**
 * `POST /compositions/{id}/preview` (`stop` false) and `/preview/stop` (true): queues the message for
 * the target and answers it as queued (202). `origin`: the request's, for the payload's object links.
 */
export function previewComposition(
  deps: Deps,
  principal: Principal,
  id: string,
  body: PreviewRequest,
  origin: string,
  stop: boolean,
): QueuedActionDto {
  const row = requireComposition(deps, id);
  requireOwnWrite(principal, 'media:write', row.subsystemId);
  const target = targetOf(deps, row, body, stop);
  requireOwnWrite(principal, 'media:write', target.id);
  const panel = body.controlPanelId === undefined ? {} : { controlPanelId: body.controlPanelId };
  let payload: Record<string, unknown> = {};
  if (!stop) {
    if (body.controlPanelId !== undefined && !findPanel(deps, body.controlPanelId)) {
      throw invalid('/controlPanelId', 'names no control panel');
    }
    if (row.status === 'broken') {
      throw conflict(`composition ${row.id} is broken (its template playable is gone) and cannot be previewed`);
    }
    const playable = row.playableId === null ? undefined : findInstantPlayable(deps, row.playableId, origin);
    if (!playable) throw conflict(`composition ${row.id} has no playable yet; save it once to make one`);
    payload = { playable, ...panel };
  }
  const type = stop ? 'previewStop' : 'previewPlay';
  const queued = transact(deps, () => {
    const message = queueMessage(deps, target.id, { type, payload });
    const subsystemExternalId = ownerExternalId(deps, row);
    if (!stop) {
      emit(deps, 'composition.preview', {
        _id: row.id,
        ...(row.externalRef === null ? {} : { externalRef: row.externalRef }),
        subsystemExternalId,
        targetSubsystemId: target.id,
        targetSubsystemExternalId: target.externalId,
        ...panel,
        uuid: message.uuid,
      });
    }
    writeAuditLog(deps, principal, {
      key: stop ? 'composition.preview_stop' : 'composition.preview',
      value: `${type} (${message.uuid}) of composition ${row.id} queued for subsystem ${target.id} (${target.externalId})`,
      subsystemId: row.subsystemId,
      subsystemExternalId,
    });
    return message;
  });
  if (stop) deps.previews.stopped(row.id, target.id);
  else deps.previews.remember(row.id, row.playableId, target.id);
  return toQueuedAction(queued, liveHealth(deps, target).status);
}
