/**
 * Conditional schedule reads (C: Responses, conditional reads): every schedule read sends
 * `Last-Modified` (and an `ETag` where it has one) and answers a current client copy with 304.
 */
import { requestMeta } from '../../../http/context';

/** Whether the request's validators say the client's copy is current. */
function notModified(request: Request, lastModified: number, etag: string | undefined): boolean {
  const tags = request.headers.get('if-none-match');
  if (tags !== null) return tags.split(',').some((tag) => tag.trim() === etag || tag.trim() === '*');
  const since = request.headers.get('if-modified-since');
  if (since === null) return false;
  const ms = Date.parse(since);
  return !Number.isNaN(ms) && Math.floor(lastModified / 1000) * 1000 <= ms;
}

export interface Conditional {
  /** The validators, for the 200 answer as well. */
  headers: Record<string, string>;
  /** The 304 to send instead of the body, or null when the client's copy is stale (or it has none). */
  unchanged: Response | null;
}

/**
 * The validators of a read last changed at `lastModified` (ms) and, when the client's copy is current,
 * its 304. Answers sent as a raw Response skip the hooks that add `x-request-id`, so it is set here.
 */
export function conditional(request: Request, lastModified: number, etag?: string): Conditional {
  const headers: Record<string, string> = {
    'last-modified': new Date(lastModified).toUTCString(),
    ...(etag === undefined ? {} : { etag }),
    'cache-control': 'no-cache',
    'x-request-id': requestMeta(request).id,
  };
  const unchanged = notModified(request, lastModified, etag) ? new Response(null, { status: 304, headers }) : null;
  return { headers, unchanged };
}
