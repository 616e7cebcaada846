/**
 * Host actions (§20): what they are, describing one, and accepting one. Accepting only answers: the
 * 202 is built here and the request is remembered (`deps.host.pending`); the routes start the
 * sequence (sequence.ts) once the response has gone (rule 2: "sent and flushed before anything else").
 */
import { iso } from '../../clock';
import type { Principal } from '../../core/principal';
import type { Deps } from '../../deps';
import { conflict, invalid } from '../../http/errors';
import { type ListResult, type Page, paginate } from '../../http/lists';
import type { HostActionAccepted, HostActionDescription, HostActionItem } from './model';
import { carryOutHostAction } from './sequence';
import { HOST_ACTIONS, type HostAction } from './state';

/** Rule 2: a second request within this long of an accepted one is 409. */
export const REPEAT_WINDOW_MS = 60_000;
/** `effectiveAt` is `acceptedAt` plus this; the executor never runs earlier. */
export const EFFECTIVE_DELAY_MS = 5_000;

/** Every host action and whether the host would carry it out now (asked of the executor, nothing done). */
export async function listHostActions(deps: Deps, page: Page): Promise<ListResult<HostActionItem>> {
  const { executor } = deps.host;
  const items = await Promise.all(
    HOST_ACTIONS.map(async (action) => ({
      action,
      available: await executor.check(action).then(
        () => true,
        () => false,
      ),
      executor: executor.name,
    })),
  );
  return paginate(items, page);
}

/** `GET` without `?confirm=true`: the action, what it needs, and the last request of any host action. */
export function describeHostAction(deps: Deps, action: HostAction): HostActionDescription {
  const last = deps.host.lastRequest;
  return {
    action,
    executor: deps.host.executor.name,
    requires: ['platform:shutdown', 'confirm'],
    lastRequest: last === null ? null : { ...last, at: iso(last.at) },
  };
}

/** The POST body's rule: `confirm` must be `true` (the schema reads `"true"` as true, §0.2). */
export function requireConfirm(body: { confirm?: boolean }): void {
  if (body.confirm !== true) throw invalid('/confirm', 'must be true to shut down or restart the appliance');
}

/**
 * Accepts the request: 409 when one was accepted in the last 60 s, else records `lastRequest` and
 * returns the 202's body. The sequence waits for `responseSent` (the routes' after-response hook).
 */
export function acceptHostAction(
  deps: Deps,
  principal: Principal,
  action: HostAction,
  request: Request,
  requestId: string,
): HostActionAccepted {
  const { host } = deps;
  const now = deps.clock.monotonic();
  if (host.acceptedAtMono !== null && now - host.acceptedAtMono < REPEAT_WINDOW_MS) {
    const at = host.lastRequest ? ` at ${iso(host.lastRequest.at)}` : '';
    throw conflict(`a host action was accepted${at}; another one can be asked for 60 s after it`);
  }
  const { executor } = host;
  const acceptedAt = deps.clock.now();
  const by = principal.username ?? principal.label;
  host.acceptedAtMono = now;
  host.lastRequest = { at: acceptedAt, by, action, dryRun: executor.dryRun };
  const accepted = {
    action,
    requestId,
    acceptedAt,
    effectiveAt: acceptedAt + EFFECTIVE_DELAY_MS,
    executor,
    principal,
    by,
  };
  const responded = new Promise<void>((resolve) => host.pending.set(request, resolve));
  // One more turn after the response has gone: by then Bun has written it to the socket.
  host.running = responded
    .then(() => new Promise((resolve) => setTimeout(resolve, 0)))
    .then(() => carryOutHostAction(deps, accepted))
    .catch((err) => deps.log.error({ err, action, requestId }, 'host action sequence failed'));
  return {
    action,
    requestId,
    acceptedAt: iso(acceptedAt),
    executor: executor.name,
    dryRun: executor.dryRun,
    effectiveAt: iso(accepted.effectiveAt),
  };
}

/** The response of `request` has gone: the sequence of the action it accepted (if any) may start. */
export function responseSent(deps: Deps, request: Request): void {
  const start = deps.host.pending.get(request);
  if (!start) return;
  deps.host.pending.delete(request);
  start();
}
