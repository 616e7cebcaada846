/**
 * What the auth module keeps per daemon (`deps.signInThrottle`): recent sign-in failures, in memory
 * only (throttle.ts says why a restart may forgive them). Data only: throttle.ts reads and bounds the
 * tables. Imports no Deps, so deps.ts can name it.
 */
export class SignInThrottle {
  /** `username|address` → failure times (ms), at most the last five. */
  readonly pairs = new Map<string, number[]>();
  /** address → failure times (ms) across usernames, at most the per-address limit. */
  readonly addresses = new Map<string, number[]>();
}
