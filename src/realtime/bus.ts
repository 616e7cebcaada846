/**
 * The in-process event bus: services publish `<noun>.<event>` with its data (§0.4, §21); the
 * WebSocket hub, webhook outbox, alerts and RPC subscribe. A service never knows who listens, and a
 * failing listener never breaks the publisher.
 *
 * Every listener hears the events in one order, the order they were published in, and a cause before
 * its consequences: an event published while the bus is delivering another (a listener's own change,
 * such as the scheduled items an event's delete leaves without a target, or the alert rules of a
 * deleted variable) waits until that one has reached every listener. Delivered at once instead, it
 * reached the listeners subscribed after the one that caused it (the WebSocket hub, JSON-RPC) before
 * its cause did, so a client re-reading on `scheduleditem.updated` still found the deleted event.
 * Nothing is reordered otherwise: events published outside a delivery go out at once, in turn.
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
  /** Events published during a delivery, delivered after it in publish order (see the module comment). */
  private readonly waiting: BusEvent[] = [];
  private delivering = false;
  constructor(private readonly onListenerError: (err: unknown, event: BusEvent) => void = () => {}) {}

  subscribe(listener: BusListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  publish(type: string, data: Record<string, unknown>, at: string, dataJson?: string): void {
    const event: BusEvent = dataJson === undefined ? { type, data, at } : { type, data, at, dataJson };
    if (this.delivering) {
      this.waiting.push(event);
      return;
    }
    this.delivering = true;
    try {
      this.deliver(event);
      // Consequences may publish further consequences: the queue grows while it is walked.
      for (let i = 0; i < this.waiting.length; i++) {
        const next = this.waiting[i];
        if (next) this.deliver(next);
      }
    } finally {
      this.waiting.length = 0;
      this.delivering = false;
    }
  }

  private deliver(event: BusEvent): void {
    for (const listener of this.listeners) {
      try {
        listener(event);
      } catch (err) {
        this.onListenerError(err, event);
      }
    }
  }
}
