/**
 * What the webhook outbox keeps per daemon (`deps.outbox`): the active webhooks compiled for
 * matching, its prepared inserts, and the dispatcher's kick. Data only; realtime/outbox.ts acts on it.
 */
import type { Statement } from 'bun:sqlite';

/** What an active webhook listens to, compiled once from its row. */
export interface CompiledWebhook {
  id: number;
  all: boolean;
  exact: ReadonlySet<string>;
  nouns: ReadonlySet<string>;
  /** null: every event; otherwise only events about these subsystems (ids and their externalIds). */
  subsystemIds: ReadonlySet<number> | null;
  subsystemExternalIds: ReadonlySet<string>;
}

export class OutboxState {
  /** The active webhooks, in `_id` order; null until read (and after every webhook write). */
  hooks: CompiledWebhook[] | null = null;
  insert: Statement | null = null;
  insertRow: Statement | null = null;
  /** Set by the dispatcher while it runs: called after rows were queued. */
  onQueued: (() => void) | null = null;
}
