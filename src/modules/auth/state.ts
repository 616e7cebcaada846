/**
 * What the auth module keeps per daemon: recent sign-in failures (`deps.signInThrottle`, in memory
 * only; throttle.ts says why a restart may forgive them) and the credentials recently used
 * (`deps.credentials`). Data only: throttle.ts and credentials.ts act on them. Imports no Deps, so
 * deps.ts can name it.
 */
import type { sessions, tokens, users } from '../../db/schema';

export class SignInThrottle {
  /** `username|address` → failure times (ms), at most the last five. */
  readonly pairs = new Map<string, number[]>();
  /** address → failure times (ms) across usernames, at most the per-address limit. */
  readonly addresses = new Map<string, number[]>();
  /** address → when a refusal of its requests without a credential was last made visible (refusals.ts). */
  readonly refusalsShown = new Map<string, number>();
}

/** What a known secret stands for, as last read from the database. */
export type KnownCredential =
  | { kind: 'token'; token: typeof tokens.$inferSelect }
  | {
      kind: 'session';
      session: typeof sessions.$inferSelect;
      user: typeof users.$inferSelect;
      /** The user's roles in order. */
      roleIds: number[];
    };

/**
 * The credentials recently used (`deps.credentials`), by the SHA-256 of the secret, so a request
 * with a token or session resolves its caller without a query (credentials.ts). Exact, not timed:
 * every write that changes what a secret stands for (a token's role, subsystems, expiry or deletion;
 * a session ended; a user's roles, name, enabled flag or deletion; any role write) clears it, and
 * expiry is judged on every use against the clock. Bounded: the oldest entry goes first.
 */
export class CredentialCache {
  static readonly MAX_ENTRIES = 4096;
  readonly known = new Map<string, KnownCredential>();

  remember(hash: string, credential: KnownCredential): void {
    if (this.known.size >= CredentialCache.MAX_ENTRIES) {
      const oldest = this.known.keys().next().value;
      if (oldest !== undefined) this.known.delete(oldest);
    }
    this.known.set(hash, credential);
  }

  /** Forgets every credential: the next use of each reads the database again. */
  clear(): void {
    this.known.clear();
  }
}
