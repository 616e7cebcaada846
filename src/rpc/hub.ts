/**
 * The push hub (C: Realtime, TCP JSON-RPC): which connection is subscribed to which subsystem or
 * player externalIds, and the publish API services use to send notifications to them. Transport
 * free: the TCP server registers a `PushConnection` per socket; tests register fakes.
 */
export interface PushConnection {
  /** Writes one JSON-RPC message line; returns false when the connection could not take it. */
  send(line: string): boolean;
}

export interface PushChannel {
  /** Sends a JSON-RPC notification to every connection subscribed to any of `targets`; returns the targets that had at least one. */
  publish(targets: readonly string[], method: string, params: Record<string, unknown>): string[];
}

export class PushHub implements PushChannel {
  private readonly subscriptions = new Map<PushConnection, Set<string>>();
  private readonly listeners = new Set<(connection: PushConnection, targets: string[]) => void>();

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

  publish(targets: readonly string[], method: string, params: Record<string, unknown>): string[] {
    const line = JSON.stringify({ jsonrpc: '2.0', method, params });
    const delivered = new Set<string>();
    for (const [connection, subscribed] of this.subscriptions) {
      const hits = targets.filter((t) => subscribed.has(t));
      if (hits.length === 0) continue;
      if (connection.send(line)) for (const t of hits) delivered.add(t);
    }
    return targets.filter((t) => delivered.has(t));
  }

  get connectionCount(): number {
    return this.subscriptions.size;
  }
}
