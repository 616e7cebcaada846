/**
 * The in-process event bus: services publish `<noun>.<event>` with its data (§0.4, §21); the
 * WebSocket hub, webhook outbox, alerts and RPC subscribe. A service never knows who listens, and a
 * failing listener never breaks the publisher.
 */
export interface BusEvent {
  type: string;
  data: Record<string, unknown>;
  /** ISO time of the change. */
  at: string;
  /** `data` as JSON, when the publisher already made it (listeners that serialise reuse it). */
  dataJson?: string;
}

export type BusListener = (event: BusEvent) => void;

export class EventBus {
  private readonly listeners = new Set<BusListener>();
  constructor(private readonly onListenerError: (err: unknown, event: BusEvent) => void = () => {}) {}

  subscribe(listener: BusListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  publish(type: string, data: Record<string, unknown>, at: string, dataJson?: string): void {
    const event: BusEvent = dataJson === undefined ? { type, data, at } : { type, data, at, dataJson };
    for (const listener of this.listeners) {
      try {
        listener(event);
      } catch (err) {
        this.onListenerError(err, event);
      }
    }
  }
}
