/**
 * The Origin rule of the WebSocket upgrade (C: Realtime). A browser sends `Origin` on every WebSocket
 * upgrade, and a page of any site may open one: with the `session` cookie, or from a browser on a
 * trusted network (which acts as the integration role without a credential), that page would act
 * for the person in front of it (cross-site WebSocket hijacking). So an upgrade carrying an Origin is
 * accepted only when the Origin's host[:port] is the Host it was sent to.
 *
 * Decisions:
 * - No `Origin` header: accepted. Non-browser clients (field drivers, scripts, consoles) do not send
 *   one, and a browser always does, so its absence is no browser page acting for someone.
 * - `Origin: null`: refused. Only browsers send it, for opaque origins (sandboxed iframes, `file:`
 *   pages, some redirects) that could be any site's page; a panel must be served from the appliance.
 * - Ports: an absent port is the default of the Origin's scheme on both sides, so `Origin:
 *   http://pms` matches `Host: pms` and `Host: pms:80`, and `https://pms` matches `Host: pms` behind
 *   a TLS proxy. Host names compare case-insensitively; the scheme itself is not compared (a proxy
 *   may end TLS).
 */

const DEFAULT_PORT: Record<string, string> = { 'http:': '80', 'https:': '443', 'ws:': '80', 'wss:': '443' };

/** `host:port` of an authority (`name`, `name:port`, `[v6]:port`), the port defaulting to `defaultPort`. */
function authority(hostAndPort: string, defaultPort: string): string | null {
  const match = /^(\[[0-9a-f:.]+\]|[^:[\]]+)(?::(\d{1,5}))?$/i.exec(hostAndPort.trim());
  if (!match?.[1]) return null;
  return `${match[1].toLowerCase()}:${match[2] ?? defaultPort}`;
}

/** Why an upgrade's Origin is refused, or null when it may proceed. */
export function originRefusal(request: Request): string | null {
  const origin = request.headers.get('origin');
  if (origin === null) return null;
  const refused = 'the Origin of this WebSocket upgrade is not the host it was sent to';
  if (!URL.canParse(origin)) return refused;
  const url = new URL(origin);
  const defaultPort = DEFAULT_PORT[url.protocol];
  if (defaultPort === undefined) return refused;
  const host = request.headers.get('host') ?? new URL(request.url).host;
  const expected = authority(host, defaultPort);
  const from = authority(url.host, defaultPort);
  return expected !== null && expected === from ? null : refused;
}
