/**
 * The ingest front door for `POST /api/v1/variables/{id}/value`, the one route field clients call
 * thousands of times a second. It answers in the app's `onRequest` stage, before Elysia's routing,
 * schema and response pipeline, and does exactly what the route does: the same auth rule, the same
 * JSON body reader, the same service (writer job, history, events, health, composites) and the
 * same error path (a thrown AppError goes through the error plugin). The declared route in
 * routes.ts stays the documented contract and serves any request this door leaves alone.
 */
import type { Deps } from '../../deps';
import { type AuthMeta, authMeta, authorize } from '../../http/auth';
import { notAnObject, readJsonBody } from '../../http/body';
import { requestMeta } from '../../http/context';
import { decodePathSegment } from '../../http/percent';
import { limitValueWrite } from '../../http/rate-limit';
import { setVariableValueJson } from './value-service';

const VALUE_PATH = /^https?:\/\/[^/]+\/api\/v1\/variables\/([^/?#]+)\/value\/?(?:[?#].*)?$/;
const RULE: AuthMeta = authMeta({ permission: 'variables:write', integration: true });

async function answer(deps: Deps, request: Request, id: string): Promise<Response> {
  const meta = requestMeta(request);
  meta.quiet = true;
  limitValueWrite(deps, request);
  const principal = authorize(deps, request, RULE);
  const body = await readJsonBody(request, deps.config.maxBodyBytes);
  if (body === null || typeof body !== 'object' || Array.isArray(body)) throw notAnObject();
  const json = await setVariableValueJson(deps, principal, decodePathSegment(id), body);
  return new Response(json, {
    headers: { 'content-type': 'application/json', 'x-request-id': meta.id },
  });
}

/** An `onRequest` hook: a Response promise for the value route, undefined for everything else. */
export function variableIngest(deps: Deps) {
  // Declared async so Elysia awaits it and a thrown AppError takes the error plugin's path.
  return async ({ request }: { request: Request }): Promise<Response | undefined> => {
    if (request.method !== 'POST') return undefined;
    const match = VALUE_PATH.exec(request.url);
    return match?.[1] === undefined ? undefined : answer(deps, request, match[1]);
  };
}
