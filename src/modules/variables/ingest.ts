/**
 * The ingest front door for `POST /api/v1/variables/{id}/value`, the one route field clients call
 * thousands of times a second. It answers in front of Elysia (`createApp` puts it before the app's
 * `handle`), so a value write pays none of Elysia's context, hook chain or response mapping, and
 * does exactly what the route does: the maintenance gate every door has, the same auth rule, the
 * same JSON body reader, the same service (writer job, history, events, health, composites), the
 * same error answers (`ErrorAnswers`, shared with the error plugin) and the same request log line.
 * The declared route in routes.ts stays the documented contract and serves any request this door
 * leaves alone.
 *
 * In front of Elysia rather than as its first `onRequest` hook (where it was until the hot-paths
 * issue's session 7): the hook's way cost about 1.6 µs of a value write's 25 µs of CPU
 * (bench/RESULTS.md).
 */
import type { Deps } from '../../deps';
import { type AuthMeta, authMeta, authorize } from '../../http/auth';
import { notAnObject, readJsonBody } from '../../http/body';
import { logRequestLine, requestMeta } from '../../http/context';
import type { ErrorAnswers } from '../../http/error-plugin';
import { maintenanceHook } from '../../http/maintenance';
import { decodePathSegment } from '../../http/percent';
import { limitValueWrite } from '../../http/rate-limit';
import { setVariableValueJson } from './value-service';

const VALUE_PATH = /^https?:\/\/[^/]+\/api\/v1\/variables\/([^/?#]+)\/value\/?(?:[?#].*)?$/;
const RULE: AuthMeta = authMeta({ permission: 'variables:write', integration: true });

/** A door in front of the app: a Response promise for the requests it serves, undefined for the rest. */
export type Door = (request: Request) => Promise<Response> | undefined;

async function answer(deps: Deps, request: Request, id: string, gate: ReturnType<typeof maintenanceHook>) {
  const meta = requestMeta(request);
  meta.quiet = true;
  gate({ request });
  limitValueWrite(deps, request);
  const principal = authorize(deps, request, RULE);
  const body = await readJsonBody(request, deps.config.maxBodyBytes);
  if (body === null || typeof body !== 'object' || Array.isArray(body)) throw notAnObject();
  const json = await setVariableValueJson(deps, principal, decodePathSegment(id), body);
  return new Response(json, {
    headers: { 'content-type': 'application/json', 'x-request-id': meta.id },
  });
}

/** The value door; errors answer as everywhere else (`answers`), and every request leaves its log line. */
export function variableIngest(deps: Deps, answers: ErrorAnswers): Door {
  const gate = maintenanceHook(deps);
  const logged = (request: Request, response: Response): Response => {
    logRequestLine(deps.log, request, response.status);
    return response;
  };
  return (request) => {
    if (request.method !== 'POST') return undefined;
    const match = VALUE_PATH.exec(request.url);
    if (match?.[1] === undefined) return undefined;
    return answer(deps, request, match[1], gate).then(
      (response) => logged(request, response),
      (error: unknown) => logged(request, answers.answer(answers.of(error, request), request)),
    );
  };
}
