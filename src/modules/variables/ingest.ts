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
import { type Door, frontDoor, segmentFor } from '../../http/door';
import type { ErrorAnswers } from '../../http/error-plugin';
import { decodePathSegment } from '../../http/percent';
import { limitValueWrite, rateLimitHook } from '../../http/rate-limit';
import { RefParams } from './model';
import { AS_JSON, putLastValue, putLastValueByName, setVariableValueJson } from './value-service';

const VALUE_PATH = /^https?:\/\/[^/]+\/api\/v1\/variables\/([^/?#]+)\/value\/?(?:[?#].*)?$/;
const RULE: AuthMeta = authMeta({ permission: 'variables:write', integration: true });

async function answer(deps: Deps, request: Request, id: string): Promise<Response> {
  limitValueWrite(deps, request);
  const principal = authorize(deps, request, RULE);
  const body = await objectBody(deps, request);
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

/** `PUT /subsystem(s)/{id}/variables/{ref}/lastValue` (§4.2). */
const BY_REF_PATH =
  /^https?:\/\/[^/]+\/api\/v1\/subsystems?\/([^/?#]+)\/variables\/([^/?#]+)\/lastValue\/?(?:[?#].*)?$/;
/** `PUT /variable/lastValue/{systemId}/{variableName}` (§4.2). */
const BY_NAME_PATH = /^https?:\/\/[^/]+\/api\/v1\/variable\/lastValue\/([^/?#]+)\/([^/?#]+)\/?(?:[?#].*)?$/;
const { id: ID, ref: REF } = RefParams.properties;

interface RefKey {
  byName: boolean;
  id: string;
  ref: string;
}

/** A write by reference the routes' schema would take. */
function refKey(request: Request): RefKey | undefined {
  if (request.method !== 'PUT') return undefined;
  let byName = false;
  let m = BY_REF_PATH.exec(request.url);
  if (!m) {
    m = BY_NAME_PATH.exec(request.url);
    byName = true;
  }
  const id = segmentFor(m?.[1], ID);
  const ref = segmentFor(m?.[2], REF);
  return id === undefined || ref === undefined ? undefined : { byName, id, ref };
}

/** The JSON object body the value routes' schema takes (`{value}` or `{lastValue}`, checked by the service). */
async function objectBody(deps: Deps, request: Request): Promise<Record<string, unknown>> {
  const body = await readJsonBody(request, deps.config.maxBodyBytes);
  if (body === null || typeof body !== 'object' || Array.isArray(body)) throw notAnObject();
  return body as Record<string, unknown>;
}

/**
 * The door of the value writes by reference (§4.2), which field drivers send as often as the value
 * write by `_id`: it does what their routes in ref-routes.ts do, in their order (the flood budget as
 * the app's hook counts it, the auth rule, the JSON body, the service) and answers 200 with the
 * variable, or 201 with it and its Location when the write created it. Its writes are writer jobs
 * (the write, and the upsert that creates), whose batches hold the answer; 'held' holds it as the
 * routes' hooks do all the same, for whatever else the request wrote (one more read of
 * `total_changes()`, about a microsecond).
 */
export function variableIngestByRef(deps: Deps, answers: ErrorAnswers): Door {
  const limit = rateLimitHook(deps);
  return frontDoor(deps, answers, 'held', refKey, async (request, { byName, id, ref }) => {
    limit({ request });
    const principal = authorize(deps, request, RULE);
    const body = await objectBody(deps, request);
    const write = byName ? putLastValueByName : putLastValue;
    const { entity, created } = await write(deps, principal, id, ref, body, AS_JSON);
    const headers: Record<string, string> = {
      'content-type': 'application/json;charset=utf-8',
      'x-request-id': requestMeta(request).id,
    };
    if (created && entity.location !== null) headers.location = entity.location;
    return new Response(entity.json, { status: created ? 201 : 200, headers });
  });
}
