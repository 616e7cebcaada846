/**
 * `GET /api/v1/ws` (C: Realtime): the WebSocket for people-facing clients, on Elysia's `.ws()`.
 *
 * The upgrade request is authenticated like any HTTP request (Bearer, `isaac-token`, `session`
 * cookie; trusted network without a credential = the integration role). A credential that is
 * present but invalid refuses the upgrade with 401 and the one error body, before any socket
 * exists. A browser's upgrade from another origin is refused first, with 403 (ws-origin.ts).
 * No credential from an untrusted address is accepted and must send
 * `{"type":"auth","token"}` as its first message within 10 s. Everything after the upgrade is the
 * hub's (ws-hub.ts) and the protocol's (ws-protocol.ts).
 *
 * Bun only upgrades when the server was started with `websocketHandler` and the app knows its server;
 * `serveHttp` (http-server.ts) does both.
 */
import type { ServerWebSocket } from 'bun';
import type { Principal } from '../core/principal';
import type { Deps } from '../deps';
import type { AuthMeta } from '../http/auth';
import { authenticate, credentialOf } from '../http/credential';
import { forbidden } from '../http/errors';
import { routeGroup } from '../http/route-group';
import type { WsClient, WsCredential } from './ws-hub';
import { originRefusal } from './ws-origin';

interface Upgrade {
  principal: Principal | null;
  credential: WsCredential;
  address: string | null;
}

/** The auth test and the OpenAPI document read this: any caller, authenticated on the upgrade or by message. */
const WS_AUTH: AuthMeta = { permission: null, anyOf: [], integration: false, self: false, public: false };

export function wsRoutes(deps: Deps) {
  const hub = deps.wsHub;
  hub.listen();
  const upgrades = new WeakMap<Request, Upgrade>();
  // Keyed by the connection's data object, which Elysia's wrapper and Bun's raw socket share.
  const clients = new WeakMap<object, WsClient>();

  return routeGroup().ws('/ws', {
    detail: {
      summary: 'WebSocket: realtime events by topic',
      description:
        'Upgrade with the same credentials as HTTP, or send {"type":"auth","token"} first within 10 s. ' +
        'Then {"type":"subscribe","topics":[…]}; events arrive as {"type":"<noun>.<event>","data","at"}.',
      tags: ['realtime'],
      'x-pms-auth': WS_AUTH,
      responses: {
        '101': { description: 'switching to the WebSocket protocol' },
        '401': {
          description: 'the upgrade carried a credential that is invalid or has expired',
          content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
        },
        '403': {
          description: "a browser's upgrade whose Origin is not the host it was sent to (or Origin: null)",
          content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
        },
      },
    } as Record<string, unknown>,
    upgrade: ({ request }) => {
      // Before any credential or the trusted-network rule is looked at (ws-origin.ts).
      const refusal = originRefusal(request);
      if (refusal !== null) throw forbidden(refusal);
      // Throws the 401 for a credential that is present but invalid.
      const principal = authenticate(deps, request);
      const secret = credentialOf(request);
      const credential: WsCredential = secret
        ? { kind: 'secret', secret }
        : principal
          ? { kind: 'trusted' }
          : { kind: 'none' };
      upgrades.set(request, { principal, credential, address: deps.remoteAddress(request) });
    },
    open: (ws) => {
      const upgrade = upgrades.get(ws.data.request);
      upgrades.delete(ws.data.request);
      // Elysia types the raw socket with its own older copy of Bun's types.
      const raw = ws.raw as unknown as ServerWebSocket<unknown>;
      const client = hub.open(
        raw,
        upgrade?.address ?? (raw.remoteAddress || null),
        upgrade?.principal ?? null,
        upgrade?.credential ?? { kind: 'none' },
      );
      clients.set(ws.data, client);
    },
    message: (ws, message) => {
      const client = clients.get(ws.data);
      if (client) hub.message(client, message);
    },
    pong: (ws) => {
      const client = clients.get(ws.data);
      if (client) hub.heard(client);
    },
    close: (ws) => {
      const client = clients.get(ws.data);
      if (client) hub.closed(client);
    },
  });
}
