/** The only place URLs are built. */
export const API_PREFIX = '/api/v1';

export function selfLink(collection: string, id: number | string): string {
  return `${API_PREFIX}/${collection}/${id}`;
}

/** The same request with another `offset`: the `Link: rel="next"` target of a cut list. */
export function pageLink(requestUrl: string, offset: number, limit: number): string {
  const url = new URL(requestUrl);
  url.searchParams.set('offset', String(offset));
  url.searchParams.set('limit', String(limit));
  return `${url.pathname}?${url.searchParams.toString()}`;
}

/** The scheme and host a request came to (its Host header): where absolute links it answers point. */
export function originOf(request: Request): string {
  return new URL(request.url).origin;
}
