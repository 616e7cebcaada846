/** Per-request facts kept beside the Request object: its id, start time, logger and caller. */
import type { Logger } from '../log';
import type { Principal } from '../modules/auth/principal';

export interface RequestMeta {
  id: string;
  startedAt: number;
  log: Logger | null;
  /** Status of an error answer, for the request log line. */
  status?: number;
  /** undefined: not decided yet; null: no credential. */
  principal?: Principal | null;
}

const metas = new WeakMap<Request, RequestMeta>();

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

export function requestMeta(request: Request): RequestMeta {
  let meta = metas.get(request);
  if (!meta) {
    const sent = request.headers.get('x-request-id');
    meta = {
      id: sent && REQUEST_ID.test(sent) ? sent : crypto.randomUUID(),
      startedAt: performance.now(),
      log: null,
    };
    metas.set(request, meta);
  }
  return meta;
}
