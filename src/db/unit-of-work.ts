/**
 * The one way to change stored data (ARCHITECTURE.md "Writing"). A unit of work is a change, its
 * audit entry and its events: they commit together or not at all, and the events reach the bus only
 * after the commit. Two ways to run one, the same `Unit` inside:
 *
 * - `transact(change)`: now, synchronously, in its own transaction. For configuration writes, jobs
 *   and everything that answers from what it just wrote. A `transact` inside another unit (or inside
 *   a writer job) joins it through a savepoint: its events and effects wait for the outer commit, and
 *   when it throws, only its own part is undone.
 * - `submit(change)`: batched by the writer (group commit, `db/writer.ts`): for hot writes (variable
 *   values and what they trigger). The promise settles after the batch committed.
 *
 * The unit whose code runs now is kept, so a service deep in a call chain emits into the unit
 * its caller opened (`emit(deps, …)` in realtime/emit.ts) instead of threading a scope through.
 *
 * A few consequences must commit with their cause rather than after it: they listen with `react`
 * (in-unit listeners) instead of on the bus. They run inside the unit that emits the event, at the
 * end of its change: a storm of causes (subsystems going offline, 100 per health-tick transaction)
 * and its consequences (an incident and a notification each) share their transactions instead of one
 * each, and a crash cannot keep one without the other.
 *
 * Events are staged by the webhook outbox (`EventStage`, realtime/outbox.ts): a synchronous unit
 * inserts each event's deliveries in its transaction at once, a batch writes one outbox row for all
 * its jobs just before COMMIT (see outbox.ts for why). Either way they commit with the change.
 */
import type { Database, Statement } from 'bun:sqlite';
import { type BatchOutbox, Writer, type WriterOptions, type WriteScope } from './writer';

/** What a change can do besides writing rows; all of it follows the change's commit or rollback. */
export type Unit = WriteScope;

/** How events reach the webhook outbox: the batched way of `BatchOutbox`, and at once for a `transact`. */
export interface EventStage extends BatchOutbox {
  /** Queues the event's deliveries in the open transaction; returns its after-commit publish. */
  stageNow(type: string, data: Record<string, unknown>): () => void;
}

/** Reacts to an event inside the unit that emits it (`UnitOfWork.react`). */
export type InUnitListener = (type: string, data: Record<string, unknown>) => void;

export interface UnitOfWorkOptions extends Omit<WriterOptions, 'outbox'> {
  /** An in-unit listener threw (its part was undone; the change that emitted goes on). */
  onListenerError?: (err: unknown, type: string) => void;
}

/**
 * The unit handed to a change: emits into `inner` (which stages) and keeps the events an in-unit
 * listener hears for the end of the change. A joined unit hands its kept events to the outer unit
 * when it succeeds (and drops them when it fails); its steps are replayed into the outer's `inner`.
 */
class ReactingUnit implements Unit {
  readonly heard: Array<{ type: string; data: Record<string, unknown> }> = [];
  constructor(
    readonly inner: Unit,
    private readonly listened: (type: string) => boolean,
  ) {}
  emit(type: string, data: Record<string, unknown>): void {
    this.inner.emit(type, data);
    if (this.listened(type)) this.heard.push({ type, data });
  }
  afterCommit(effect: () => void): void {
    this.inner.afterCommit(effect);
  }
  onUndo(undo: () => void): void {
    this.inner.onUndo(undo);
  }
}

/** A unit joined inside another: its steps are replayed into the outer unit when it succeeds. */
class JoinedUnit implements Unit {
  readonly steps: Array<(outer: Unit) => void> = [];
  readonly undos: Array<() => void> = [];
  emit(type: string, data: Record<string, unknown>): void {
    this.steps.push((outer) => outer.emit(type, data));
  }
  afterCommit(effect: () => void): void {
    this.steps.push((outer) => outer.afterCommit(effect));
  }
  onUndo(undo: () => void): void {
    this.undos.push(undo);
  }
}

export class UnitOfWork {
  private readonly writer: Writer;
  private open: Unit | null = null;
  private readonly onEffectError: (err: unknown) => void;
  private readonly onListenerError: (err: unknown, type: string) => void;
  private readonly listeners = new Map<string, Set<InUnitListener>>();
  /**
   * What `sqlite.transaction(fn)()` runs, prepared once: bun builds five wrapper functions per call of
   * `transaction`, which a storm of nested units (a savepoint each) pays thousands of times.
   */
  private readonly tx: Record<'begin' | 'commit' | 'rollback' | 'savepoint' | 'release' | 'rollbackTo', Statement>;

  constructor(
    private readonly sqlite: Database,
    private readonly events: EventStage,
    options: UnitOfWorkOptions = {},
  ) {
    this.writer = new Writer(sqlite, { ...options, outbox: events });
    this.onEffectError = options.onEffectError ?? (() => {});
    this.onListenerError = options.onListenerError ?? (() => {});
    this.tx = {
      begin: sqlite.prepare('BEGIN'),
      commit: sqlite.prepare('COMMIT'),
      rollback: sqlite.prepare('ROLLBACK'),
      savepoint: sqlite.prepare('SAVEPOINT unit'),
      release: sqlite.prepare('RELEASE unit'),
      rollbackTo: sqlite.prepare('ROLLBACK TO unit'),
    };
  }

  /**
   * Runs `listener` for every event of `types` inside the unit that emits it: when the change (the
   * outermost `transact`, or the writer job) has finished, before it commits, in the order the events
   * were emitted, each joined like a nested `transact`. What it writes and emits commits with the
   * cause, its events are published after all of the cause's, and when it throws only its own part is
   * undone and the error is reported: a listener never fails the change that emitted. Events a
   * listener emits are heard too. For consequences that must be stored with their cause and are
   * cheap; everything else listens on the bus, after the commit. Returns the unsubscribe.
   */
  react(types: readonly string[], listener: InUnitListener): () => void {
    for (const type of types) {
      const set = this.listeners.get(type) ?? new Set<InUnitListener>();
      set.add(listener);
      this.listeners.set(type, set);
    }
    return () => {
      for (const type of types) this.listeners.get(type)?.delete(listener);
    };
  }

  /**
   * Runs `change` now as one unit (see the module comment). `change` must be synchronous; when it
   * throws, nothing of it is stored, its undos run and its events are never published.
   */
  transact<T>(change: (unit: Unit) => T): T {
    const outer = this.open;
    return outer ? this.join(outer, change) : this.runAlone(change);
  }

  /** Queues `change` for the writer's next batch; resolves once that batch committed. */
  submit<T>(change: (unit: Unit) => T): Promise<T> {
    return this.writer.submit((scope) => {
      const unit = this.reacting(scope);
      return this.within(unit, () => this.reactingTo(unit, change(unit)));
    });
  }

  /**
   * Emits into the open unit. With none open, the event is a unit of its own: that is right for an
   * event that reports no stored change (a scheduled item ended, the schedule's clock turned over).
   */
  emit(type: string, data: Record<string, unknown>): void {
    if (this.open) this.open.emit(type, data);
    else this.transact((unit) => unit.emit(type, data));
  }

  /** Writer jobs waiting for a batch. */
  get pending(): number {
    return this.writer.pending;
  }

  /** Whether hot writes are congesting the daemon (background work yields; see `Writer.congested`). */
  get congested(): boolean {
    return this.writer.congested;
  }

  /** Commits every queued writer job now (shutdown, tests). */
  drain(): void {
    this.writer.drain();
  }

  private reacting(inner: Unit): ReactingUnit {
    return new ReactingUnit(inner, (type) => (this.listeners.get(type)?.size ?? 0) > 0);
  }

  /**
   * The end of an outermost change (`unit` is open): the in-unit listeners of every event it kept,
   * in order, each joined to it (see `react`); then the change's `result`.
   */
  private reactingTo<T>(unit: ReactingUnit, result: T): T {
    for (let i = 0; i < unit.heard.length; i++) {
      const event = unit.heard[i];
      if (!event) continue;
      for (const listener of this.listeners.get(event.type) ?? []) {
        try {
          this.transact(() => listener(event.type, event.data));
        } catch (err) {
          // A full disk (or I/O error) rolled the whole transaction back: the cause has failed too.
          if (!this.sqlite.inTransaction) throw err;
          this.onListenerError(err, event.type);
        }
      }
    }
    unit.heard.length = 0;
    return result;
  }

  /**
   * `run` in a transaction, or in a savepoint inside the open one, as `sqlite.transaction(run)()`
   * does: undone when it throws (unless SQLite already rolled the whole transaction back).
   */
  private inTransaction<T>(run: () => T): T {
    const nested = this.sqlite.inTransaction;
    const tx = this.tx;
    (nested ? tx.savepoint : tx.begin).run();
    try {
      const result = run();
      (nested ? tx.release : tx.commit).run();
      return result;
    } catch (err) {
      if (this.sqlite.inTransaction) {
        if (nested) {
          tx.rollbackTo.run();
          tx.release.run();
        } else tx.rollback.run();
      }
      throw err;
    }
  }

  private within<T>(unit: Unit, run: () => T): T {
    const previous = this.open;
    this.open = unit;
    try {
      return run();
    } finally {
      this.open = previous;
    }
  }

  private runAlone<T>(change: (unit: Unit) => T): T {
    const effects: Array<() => void> = [];
    const undos: Array<() => void> = [];
    const unit = this.reacting({
      emit: (type, data) => effects.push(this.events.stageNow(type, data)),
      afterCommit: (effect) => effects.push(effect),
      onUndo: (undo) => undos.push(undo),
    });
    let result: T;
    try {
      result = this.within(unit, () => this.inTransaction(() => this.reactingTo(unit, change(unit))));
    } catch (err) {
      for (const undo of undos.reverse()) undo();
      throw err;
    }
    for (const effect of effects) {
      try {
        effect();
      } catch (err) {
        this.onEffectError(err);
      }
    }
    return result;
  }

  private join<T>(outer: Unit, change: (unit: Unit) => T): T {
    const joined = new JoinedUnit();
    const unit = this.reacting(joined);
    let result: T;
    try {
      result = this.within(unit, () => this.inTransaction(() => change(unit)));
    } catch (err) {
      for (const undo of joined.undos.reverse()) undo();
      throw err;
    }
    // Replayed into what the outer unit stages; what the listeners must hear goes to the outer unit,
    // whose change ends later (heard once, there).
    const target = outer instanceof ReactingUnit ? outer.inner : outer;
    for (const undo of joined.undos) target.onUndo(undo);
    for (const step of joined.steps) step(target);
    if (outer instanceof ReactingUnit) for (const event of unit.heard) outer.heard.push(event);
    return result;
  }
}
