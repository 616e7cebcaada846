/**
 * The push hub (C: Realtime, TCP JSON-RPC): which connection is subscribed to which subsystem or
 * player externalIds, and the publish API services use to send notifications to them. Transport
 * free: the TCP server registers a `PushConnection` per socket; tests register fakes.
 */
import type { Logger } from '../log';

export interface PushConnection {
  /** Writes one JSON-RPC message line; returns false when the connection could not take it. */
  send(line: string): boolean;
  /**
   * Whether a notification for this subscribed target may reach the connection now. A subscription
   * names an externalId, and what holds that externalId can change after it was checked (renamed,
   * deleted and created again); the credential can lapse or be narrowed. Absent: always.
   */
  mayReceive?(target: string): boolean;
}

/** One field driver drops lines of 1 000 bytes or more (C: Realtime): every server line stays below. */
export const MAX_PUSH_LINE_BYTES = 999;

/** Told when a line had to leave its `command` out to stay under the limit. */
export type OversizeListener = (method: string, params: Record<string, unknown>) => void;

/**
 * The JSON-RPC line of a notification, under MAX_PUSH_LINE_BYTES. When `params.command` would take
 * it over, the command is left out (`command: ""`, `commandOmitted: true`): the rest of the line
 * still says what starts (`itemType`, `itemId`), so a client can read the whole command over HTTP,
 * where a longer line would be dropped whole. Nothing else in the params can grow that far.
 */
export function pushLine(method: string, params: Record<string, unknown>, onOversize?: OversizeListener): string {
  const line = JSON.stringify({ jsonrpc: '2.0', method, params });
  // A UTF-16 unit is at most 3 bytes in UTF-8: most lines are short enough to skip the count.
  if (line.length * 3 <= MAX_PUSH_LINE_BYTES || Buffer.byteLength(line) <= MAX_PUSH_LINE_BYTES) return line;
  if (typeof params.command !== 'string' || params.command === '') return line;
  onOversize?.(method, params);
  return JSON.stringify({ jsonrpc: '2.0', method, params: { ...params, command: '', commandOmitted: true } });
}

export interface PushChannel {
  /** Sends a JSON-RPC notification to every connection subscribed to any of `targets`; returns the targets that had at least one. */
  publish(targets: readonly string[], method: string, params: Record<string, unknown>): string[];
}

export class PushHub implements PushChannel {
  private readonly subscriptions = new Map<PushConnection, Set<string>>();
  private readonly listeners = new Set<(connection: PushConnection, targets: string[]) => void>();

  /** `onOversize` is told of every line that left its command out (boot logs it). */
  constructor(readonly onOversize?: OversizeListener) {}

  add(connection: PushConnection): void {
    if (!this.subscriptions.has(connection)) this.subscriptions.set(connection, new Set());
  }

  remove(connection: PushConnection): void {
    this.subscriptions.delete(connection);
  }

  subscribe(connection: PushConnection, targets: readonly string[]): void {
    const set = this.subscriptions.get(connection) ?? new Set<string>();
    this.subscriptions.set(connection, set);
    const added = targets.filter((t) => !set.has(t));
    for (const t of added) set.add(t);
    if (added.length > 0) for (const listener of this.listeners) listener(connection, added);
  }

  unsubscribe(connection: PushConnection, targets: readonly string[]): void {
    const set = this.subscriptions.get(connection);
    if (set) for (const t of targets) set.delete(t);
  }

  subscribedTargets(connection: PushConnection): string[] {
    return [...(this.subscriptions.get(connection) ?? [])];
  }

  /** Called when a connection subscribes to new targets (the schedule sends what is running now). */
  onSubscribe(listener: (connection: PushConnection, targets: string[]) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * The connections a notification for `target` reaches now (subscribed, and allowed to receive it).
   * With `sendTo`, a sender that must commit a record first (the schedule runner) chooses who is
   * told when it records it and tells them once the record is on disk.
   */
  recipients(target: string): PushConnection[] {
    const found: PushConnection[] = [];
    for (const [connection, subscribed] of this.subscriptions)
      if (subscribed.has(target) && (connection.mayReceive?.(target) ?? true)) found.push(connection);
    return found;
  }

  /** Sends one line to those of `connections` still open, subscribed to `target` and allowed to receive it. */
  sendTo(
    connections: readonly PushConnection[],
    target: string,
    method: string,
    params: Record<string, unknown>,
  ): void {
    let line: string | null = null;
    for (const connection of connections) {
      if (!this.subscriptions.get(connection)?.has(target)) continue;
      if (connection.mayReceive && !connection.mayReceive(target)) continue;
      line ??= pushLine(method, params, this.onOversize);
      connection.send(line);
    }
  }

  publish(targets: readonly string[], method: string, params: Record<string, unknown>): string[] {
    let line: string | null = null;
    const delivered = new Set<string>();
    for (const [connection, subscribed] of this.subscriptions) {
      let hits = targets.filter((t) => subscribed.has(t));
      if (hits.length > 0 && connection.mayReceive) hits = hits.filter((t) => connection.mayReceive?.(t));
      if (hits.length === 0) continue;
      line ??= pushLine(method, params, this.onOversize);
      if (connection.send(line)) for (const t of hits) delivered.add(t);
    }
    return targets.filter((t) => delivered.has(t));
  }

  get connectionCount(): number {
    return this.subscriptions.size;
  }
}

/**
 * The daemon's `OversizeListener`: a warning naming the item, at most once an hour per item, so
 * people learn which command to shorten without a line per push.
 */
export function warnOversize(log: Logger, now: () => number): OversizeListener {
  const warned = new Map<string, number>();
  return (method, params) => {
    const key = `${String(params.itemType)}:${String(params.itemId)}`;
    const at = now();
    if (at - (warned.get(key) ?? Number.NEGATIVE_INFINITY) < 3_600_000) return;
    if (warned.size >= 10_000) warned.clear();
    warned.set(key, at);
    log.warn(
      { method, itemType: params.itemType, itemId: params.itemId, subsystemExternalId: params.subsystemExternalId },
      `a push line would be over ${MAX_PUSH_LINE_BYTES} bytes; it was sent without its command (one field driver drops longer lines): shorten the command`,
    );
  };
}
