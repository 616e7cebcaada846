/**
 * The WebSocket hub (C: Realtime, §0.4): the open `/api/v1/ws` connections, their credentials and
 * topics, and delivery of every bus event to the clients subscribed to its topic that hold the
 * topic's read permission. It knows sockets only through `WsSocket`, so tests can drive it directly.
 *
 * Permissions are taken from the caller's principal, re-established from its credential every
 * REAUTH_MS by `sweep` (main runs it every second): a role change reaches delivery, and a revoked
 * token, deleted user or ended session is refused, within seconds. An open socket counts as use of
 * its session, as a request would. `sweep` also sends the keep-alive pings, closes clients silent
 * for SILENT_CLOSE_MS and connections that did not authenticate within the auth timeout. Every
 * one of these times is counted on `Stalls.listening()` (clock.ts): a stall of the daemon itself (a
 * VM paused for minutes) is not a client's silence, so the first sweep after it, which may run before
 * the pongs and auth messages waiting in the sockets are read, closes nobody for it.
 */

import type { Stalls } from '../clock';
import type { Principal } from '../core/principal';
import type { Logger } from '../log';
import type { BusEvent, EventBus } from './bus';
import { inAudience, topicOfEvent, topicPermission } from './topics';
import { handleClientMessage } from './ws-protocol';

export const PING_EVERY_MS = 30_000;
export const SILENT_CLOSE_MS = 90_000;
export const AUTH_TIMEOUT_MS = 10_000;
export const REAUTH_MS = 5_000;
/** What may wait for a slow reader before its connection is dropped. */
export const MAX_BUFFERED_BYTES = 1024 * 1024;

/** Close codes: 1000 keep-alive timeout, 1001 shutdown, 1008 auth refused, 1013 too slow. */
export const CLOSE = { idle: 1000, goingAway: 1001, policy: 1008, tryAgainLater: 1013 } as const;

/** The part of Bun's ServerWebSocket the hub uses. */
export interface WsSocket {
  /** Bun's status: bytes sent, -1 queued behind backpressure, 0 dropped. */
  send(text: string): number;
  getBufferedAmount(): number;
  /** Runs `batch` with the socket corked: what it sends goes out in one write. */
  cork(batch: () => void): unknown;
  ping(): void;
  close(code: number, reason: string): void;
}

/** How the connection authenticated: a secret (re-checked later) or the trusted-network rule. */
export type WsCredential = { kind: 'secret'; secret: string } | { kind: 'trusted' } | { kind: 'none' };

export class WsClient {
  principal: Principal | null = null;
  credential: WsCredential = { kind: 'none' };
  authenticatedAt = 0;
  lastHeard: number;
  lastPing: number;
  readonly topics = new Set<string>();
  closed = false;
  constructor(
    readonly socket: WsSocket,
    readonly address: string | null,
    readonly openedAt: number,
  ) {
    this.lastHeard = openedAt;
    this.lastPing = openedAt;
  }
}

/**
 * What the hub needs of its daemon (boot.ts binds it): the bus it delivers from, the daemon's listening time, the log
 * and who a credential stands for. Declared here rather than taking Deps, so Deps can hold the hub.
 */
export interface WsHubHost {
  bus: EventBus;
  /** Silence is counted only while the daemon could listen. */
  stalls: Stalls;
  log: Logger;
  /** The principal a secret stands for; null when invalid (deps.identity). */
  fromSecret(secret: string, address: () => string | null): Principal | null;
  /** Whether the address is on a trusted network (deps.identity). */
  isTrusted(address: string): boolean;
  /** The integration principal of a trusted address (deps.identity). */
  trusted(address: string): Principal;
}

export class WsHub {
  private readonly clients = new Set<WsClient>();
  /** Settable so tests can make a slow client with less data. */
  maxBufferedBytes = MAX_BUFFERED_BYTES;
  /**
   * Event frames per client waiting for the end of this turn of the event loop: a writer batch
   * publishes dozens of events in one turn, and they go out to each client corked, in one write,
   * instead of one system call each.
   */
  private readonly outgoing = new Map<WsClient, string[]>();
  private flushQueued = false;
  private listening = false;

  constructor(private readonly host: WsHubHost) {}

  /**
   * Starts delivering bus events; once, when the WebSocket route is built (ws.ts), so the hub hears
   * each event after the listeners the daemon installed at boot, as it always has.
   */
  listen(): void {
    if (this.listening) return;
    this.listening = true;
    this.host.bus.subscribe((event) => this.deliver(event));
  }

  get size(): number {
    return this.clients.size;
  }

  /** A new connection; `principal` when the upgrade request already authenticated it. */
  open(socket: WsSocket, address: string | null, principal: Principal | null, credential: WsCredential): WsClient {
    const client = new WsClient(socket, address, this.host.stalls.listening());
    if (principal) this.authenticated(client, principal, credential);
    this.clients.add(client);
    this.host.log.debug({ address, who: principal?.label ?? null }, 'websocket client connected');
    return client;
  }

  /** A text or parsed message from the client. */
  message(client: WsClient, message: unknown): void {
    if (client.closed) return;
    client.lastHeard = this.host.stalls.listening();
    handleClientMessage(this, client, message);
  }

  /** Any sign of life that is not a message (a pong frame). */
  heard(client: WsClient): void {
    client.lastHeard = this.host.stalls.listening();
  }

  /** The socket is gone (closed by either side). */
  closed(client: WsClient): void {
    client.closed = true;
    this.clients.delete(client);
    this.outgoing.delete(client);
  }

  /** Checks a first-message `auth`; true when it stands for a valid caller. */
  authenticateWith(client: WsClient, secret: string): boolean {
    const principal = this.host.fromSecret(secret, () => client.address);
    if (!principal) return false;
    this.authenticated(client, principal, { kind: 'secret', secret });
    return true;
  }

  /** A reply to the client; after the events already waiting for it, so the order holds. */
  send(client: WsClient, message: Record<string, unknown>): void {
    const text = JSON.stringify(message);
    if (this.outgoing.has(client)) this.queue(client, text);
    else this.sendText(client, text);
  }

  /** Closes a connection from the server side. */
  close(client: WsClient, code: number, reason: string): void {
    if (client.closed) return;
    this.closed(client);
    client.socket.close(code, reason);
  }

  /** Refuses a credential: `auth_invalid`, then a policy close. */
  refuse(client: WsClient, reason: string): void {
    this.sendText(client, '{"type":"auth_invalid"}');
    this.close(client, CLOSE.policy, reason);
  }

  /** Keep-alive, the auth timeout and re-authentication; main runs it every second. */
  sweep(): void {
    const now = this.host.stalls.listening();
    for (const client of [...this.clients]) {
      if (!client.principal) {
        if (now - client.openedAt >= AUTH_TIMEOUT_MS) this.refuse(client, 'authentication timed out');
        continue;
      }
      if (now - client.lastHeard >= SILENT_CLOSE_MS) {
        this.host.log.info({ address: client.address }, 'websocket client silent for 90 s; closed');
        this.close(client, CLOSE.idle, 'keep-alive timeout');
        continue;
      }
      if (now - client.authenticatedAt >= REAUTH_MS) this.reauthenticate(client, now);
      if (!client.closed && now - client.lastPing >= PING_EVERY_MS) {
        client.lastPing = now;
        client.socket.ping();
      }
    }
  }

  /** Closes every connection (shutdown: 1001). */
  closeAll(code: number = CLOSE.goingAway, reason = 'server shutting down'): void {
    for (const client of [...this.clients]) this.close(client, code, reason);
  }

  private authenticated(client: WsClient, principal: Principal, credential: WsCredential): void {
    client.principal = principal;
    client.credential = credential;
    client.authenticatedAt = this.host.stalls.listening();
  }

  private reauthenticate(client: WsClient, now: number): void {
    const { credential } = client;
    let principal: Principal | null = null;
    if (credential.kind === 'secret') principal = this.host.fromSecret(credential.secret, () => client.address);
    else if (credential.kind === 'trusted' && client.address !== null && this.host.isTrusted(client.address))
      principal = this.host.trusted(client.address);
    if (!principal) {
      this.refuse(client, 'the credential is no longer valid');
      return;
    }
    client.principal = principal;
    client.authenticatedAt = now;
  }

  private deliver(event: BusEvent): void {
    if (this.clients.size === 0) return;
    const topic = topicOfEvent(event.type);
    if (topic === null) return;
    const permission = topicPermission(topic);
    let frame: string | null = null;
    for (const client of this.clients) {
      const { principal } = client;
      if (!principal || !client.topics.has(topic)) continue;
      if (permission !== null && !principal.permissions.has(permission)) continue;
      if (!inAudience(topic, principal, event.data)) continue;
      frame ??= eventFrame(event);
      this.queue(client, frame);
    }
  }

  private queue(client: WsClient, frame: string): void {
    const frames = this.outgoing.get(client);
    if (frames) frames.push(frame);
    else this.outgoing.set(client, [frame]);
    if (this.flushQueued) return;
    this.flushQueued = true;
    queueMicrotask(() => this.flushOutgoing());
  }

  /** Sends the frames waiting for each client, corked; a socket that fails is closed, the others still get theirs. */
  private flushOutgoing(): void {
    this.flushQueued = false;
    const outgoing = [...this.outgoing];
    this.outgoing.clear();
    for (const [client, frames] of outgoing) {
      try {
        client.socket.cork(() => {
          for (const frame of frames) {
            if (client.closed) return;
            this.sendText(client, frame);
          }
        });
      } catch (err) {
        this.host.log.warn({ err, address: client.address }, 'websocket send failed; closed');
        this.closed(client);
      }
    }
  }

  private sendText(client: WsClient, text: string): void {
    if (client.closed) return;
    const status = client.socket.send(text);
    if (status === 0 || client.socket.getBufferedAmount() > this.maxBufferedBytes) {
      this.host.log.warn(
        { address: client.address, who: client.principal?.label },
        'websocket client too slow; dropped',
      );
      this.close(client, CLOSE.tryAgainLater, 'client too slow');
    }
  }
}

/** `{"type","data","at"}` of an event, byte for byte JSON.stringify's, reusing the data's JSON when the bus has it. */
export function eventFrame(event: BusEvent): string {
  const data = event.dataJson ?? JSON.stringify(event.data);
  return `{"type":${JSON.stringify(event.type)},"data":${data},"at":${JSON.stringify(event.at)}}`;
}
