/**
 * Where a webhook may deliver (§10 rule 6). The policy is the daemon's one address policy in
 * http/net.ts, shared with the subsystem health checks; it is applied to the literal address of a
 * URL, to what its name resolves to when the webhook is written, and again before every attempt.
 * Re-exported here for the webhook module, which imports it from this place.
 */
export { addressAllowed, literalAddress } from '../http/net';
