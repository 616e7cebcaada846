/**
 * The heartbeat's front door: `PUT /api/v1/subsystems/{id}/heartbeat`, which every subsystem sends
 * every few seconds (a venue powering up sends thousands a second), answered in front of Elysia
 * (http/door.ts says why and what every door shares). It does exactly what the route in routes.ts
 * does, in the route's order: the heartbeat budget (`limitHeartbeat`, the flood limit's rule for
 * it), the route's auth rule, the body discarded unread, the service, and (by the door, `'held'`)
 * the answer held until what it wrote is on disk, as the app's durability hooks hold every write.
 * The answer is the route's JSON, byte for byte, with the same content type. A path segment the
 * route's schema refuses (empty, too long, a malformed escape) is left to the route, which answers
 * it as it always has.
 */
import type { Deps } from '../../deps';
import { type AuthMeta, authMeta, authorize } from '../../http/auth';
import { discardBody } from '../../http/body';
import { requestMeta } from '../../http/context';
import { type Door, frontDoor, segmentFor } from '../../http/door';
import type { ErrorAnswers } from '../../http/error-plugin';
import { IdParam } from '../../http/fields';
import { HEARTBEAT_PATH, limitHeartbeat } from '../../http/rate-limit';
import { heartbeat } from './heartbeat';

const RULE: AuthMeta = authMeta({ permission: 'subsystems:write', integration: true, body: 'ignore' });
const ID = IdParam.properties.id;

/** A heartbeat the route's schema would take: its path segment as sent and the key it decodes to. */
function heartbeatKey(request: Request): { segment: string; id: string } | undefined {
  if (request.method !== 'PUT') return undefined;
  const segment = HEARTBEAT_PATH.exec(request.url)?.[1];
  const id = segmentFor(segment, ID);
  return segment === undefined || id === undefined ? undefined : { segment, id };
}

export function heartbeatDoor(deps: Deps, answers: ErrorAnswers): Door {
  // 'held': delivering a queued message writes outside the writer's batches.
  return frontDoor(deps, answers, 'held', heartbeatKey, async (request, { segment, id }) => {
    limitHeartbeat(deps, request, segment);
    const principal = authorize(deps, request, RULE);
    await discardBody(request);
    const answer = await heartbeat(deps, principal, id, deps.remoteAddress(request), request);
    return new Response(JSON.stringify(answer), {
      headers: { 'content-type': 'application/json;charset=utf-8', 'x-request-id': requestMeta(request).id },
    });
  });
}
