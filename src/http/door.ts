/**
 * Doors in front of Elysia: the routes field clients call many times a second (a value write, by
 * `_id` or by reference, and a heartbeat) are answered before the app's `handle` reaches Elysia
 * (`createApp`), so they pay none of its context, hook chain, schema checks or response mapping:
 * measured, that pipeline cost a heartbeat with a token 5–8 µs of its 23–29 and a value write
 * about 1.6 µs (bench/RESULTS.md, hot paths session 7); a value write by reference, which built and
 * checked its whole answer, about 15 µs (session 9). A door does exactly what its route does; what
 * every route gets from the pipeline, a door gets here, from the same code: the maintenance gate
 * first, a thrown error answered by `ErrorAnswers`, the request line (`logRequestLine`, at debug
 * when it succeeds), and an answer that wrote rows held until they are on disk, as the app's
 * durability hooks hold every route's (a door whose every write goes through the writer says
 * `'writer'`: the writer holds those answers itself, and reading `total_changes()` twice more would
 * cost the value write about a microsecond). A request a door's `match` leaves alone (another
 * method, a path segment its route's schema would refuse) goes to Elysia untouched, and nothing of
 * it has been counted or read.
 */
import type { Deps } from '../deps';
import { logRequestLine, requestMeta } from './context';
import type { ErrorAnswers } from './error-plugin';
import { maintenanceHook } from './maintenance';
import { decodeOrNull } from './percent';

/** A Response promise for the requests the door serves, undefined for the rest. */
export type Door = (request: Request) => Promise<Response> | undefined;

/** Who holds a door's answer until its writes are on disk (db/durability.ts): the door, or the writer. */
export type DoorWrites = 'held' | 'writer';

export function frontDoor<K>(
  deps: Deps,
  answers: ErrorAnswers,
  writes: DoorWrites,
  match: (request: Request) => K | undefined,
  serve: (request: Request, key: K) => Promise<Response>,
): Door {
  const gate = maintenanceHook(deps);
  const logged = (request: Request, response: Response): Response => {
    logRequestLine(deps.log, request, response.status);
    return response;
  };
  const run = async (request: Request, key: K): Promise<Response> => {
    requestMeta(request).quiet = true;
    gate({ request });
    if (writes === 'writer') return serve(request, key);
    const before = deps.durability.mark();
    const response = await serve(request, key);
    const written = deps.durability.whenWrittenDurable(before);
    if (written) await written;
    return response;
  };
  return (request) => {
    const key = match(request);
    if (key === undefined) return undefined;
    return run(request, key).then(
      (response) => logged(request, response),
      (error: unknown) => logged(request, answers.answer(answers.of(error, request), request)),
    );
  };
}

/** The first door that serves `request`, else `rest` (Elysia's handle). */
export function throughDoors(doors: readonly Door[], rest: (request: Request) => Promise<Response>) {
  return (request: Request): Promise<Response> => {
    for (const door of doors) {
      const answer = door(request);
      if (answer) return answer;
    }
    return rest(request);
  };
}

/**
 * A path segment as its route's params schema takes it: decoded, within the schema's lengths; else
 * undefined, and the door leaves the request to the route, which answers it as it always has.
 */
export function segmentFor(raw: string | undefined, schema: { minLength?: number; maxLength?: number }) {
  const text = raw === undefined ? null : decodeOrNull(raw);
  if (text === null) return undefined;
  if (text.length < (schema.minLength ?? 0) || text.length > (schema.maxLength ?? Number.MAX_SAFE_INTEGER))
    return undefined;
  return text;
}
