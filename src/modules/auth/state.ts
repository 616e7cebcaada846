/**
 * What the auth module keeps per daemon: recent sign-in failures (`deps.signInThrottle`, in memory
 * only; throttle.ts says why a restart may forgive them) and the credentials recently used
 * (`deps.credentials`). Data only: throttle.ts and credentials.ts act on them. Imports no Deps, so
 * deps.ts can name it.
 */
import { StallsFollowed, WallSteps } from '../../clock';
import type { sessions, tokens, users } from '../../db/schema';
import { makeRoom } from '../../http/bounded';

export class SignInThrottle {
  /** `username|address` → failure times (monotonic ms), at most the last five. */
  readonly pairs = new Map<string, number[]>();
  /** address → failure times (monotonic ms) across usernames, at most the per-address limit. */
  readonly addresses = new Map<string, number[]>();
  /** address → when (monotonic ms) a refusal of its requests without a credential was last made visible (refusals.ts). */
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
 * a session ended; a user's roles, name, enabled flag or deletion; any role written) clears it, and
 * expiry is judged on every use against the clock. Only secrets that stand for something are kept.
 *
 * Bounded at `maxEntries` (about 0.5 KB an entry, 8 MB when full): a full cache lets its oldest
 * quarter go (`makeRoom`), and a credential let go is read again on its next use. The bound is above
 * what a large venue uses at once, a token per device for 10 000 subsystems and the people signed in:
 * at 4 096, 5 000 devices heartbeating in turn with a token each missed on every request and ran at a
 * third of the rate (bench/RESULTS.md, "Hot paths, session 9").
 */
export class CredentialCache {
  static readonly MAX_ENTRIES = 16_384;
  /** The bound; tests lower it. */
  maxEntries = CredentialCache.MAX_ENTRIES;
  readonly known = new Map<string, KnownCredential>();
  /** Wall-clock steps, which move the stored session times (sessions.ts `followWallClock`). */
  readonly wallSteps = new WallSteps();
  /** Stalls of the daemon, which move the stored last uses (sessions.ts `followWallClock`). */
  readonly stallsFollowed = new StallsFollowed();

  remember(hash: string, credential: KnownCredential): void {
    if (!this.known.has(hash)) makeRoom(this.known, this.maxEntries);
    this.known.set(hash, credential);
  }

  /** Forgets every credential: the next use of each reads the database again. */
  clear(): void {
    this.known.clear();
  }
}
