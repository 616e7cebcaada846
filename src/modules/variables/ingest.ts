/**
 * The ingest front door for `POST /api/v1/variables/{id}/value`, the one route field clients call
 * thousands of times a second, answered in front of Elysia (http/door.ts says why and what every
 * door shares). It does exactly what the route does: the same auth rule, the same JSON body reader,
 * the same service (writer job, history, events, health, composites). The declared route in
 * routes.ts stays the documented contract and serves any request this door leaves alone.
 */
import type { Deps } from '../../deps';
import { type AuthMeta, authMeta, authorize } from '../../http/auth';
import { notAnObject, readJsonBody } from '../../http/body';
import { requestMeta } from '../../http/context';
import { type Door, frontDoor } from '../../http/door';
import type { ErrorAnswers } from '../../http/error-plugin';
import { decodePathSegment } from '../../http/percent';
import { limitValueWrite } from '../../http/rate-limit';
import { setVariableValueJson } from './value-service';

const VALUE_PATH = /^https?:\/\/[^/]+\/api\/v1\/variables\/([^/?#]+)\/value\/?(?:[?#].*)?$/;
const RULE: AuthMeta = authMeta({ permission: 'variables:write', integration: true });

async function answer(deps: Deps, request: Request, id: string): Promise<Response> {
  limitValueWrite(deps, request);
  const principal = authorize(deps, request, RULE);
  const body = await readJsonBody(request, deps.config.maxBodyBytes);
  if (body === null || typeof body !== 'object' || Array.isArray(body)) throw notAnObject();
  const json = await setVariableValueJson(deps, principal, decodePathSegment(id), body);
  return new Response(json, {
    headers: { 'content-type': 'application/json', 'x-request-id': requestMeta(request).id },
  });
}

/** The value door. */
export function variableIngest(deps: Deps, answers: ErrorAnswers): Door {
  const match = (request: Request) => (request.method === 'POST' ? VALUE_PATH.exec(request.url)?.[1] : undefined);
  // 'writer': the write is a writer job, whose batch answers only once it is on disk.
  return frontDoor(deps, answers, 'writer', match, (request, id) => answer(deps, request, id));
}
