/**
 * The public keys licences are checked against (§19): the vendor's, built into the binary, and the
 * test key of the configuration (`PMS_LICENSE_TEST_KEY`, config.ts), if any.
 *
 * The private key of each built-in key is held by the vendor, not in this repository (nor in any
 * build): only public keys are ever committed here. A new vendor key is added beside the old ones
 * (licences name their key by `kid`), so licences signed with an earlier key keep verifying.
 */
import type { KeyObject } from 'node:crypto';
import type { Config } from '../../config';
import { publicKeyOf } from './envelope';

/** kid → base64url of the raw 32-byte Ed25519 public key. */
export const BUILT_IN_KEYS: Readonly<Record<string, string>> = {
  'pms-2026-1': '_GfEF9OILooXMoHXUBTxTmqYw2ASZGP9aXHCydWR1Zk',
};

const parsed = new Map<string, KeyObject | null>();

function keyObject(base64url: string): KeyObject | null {
  let key = parsed.get(base64url);
  if (key === undefined) {
    key = publicKeyOf(base64url);
    parsed.set(base64url, key);
  }
  return key;
}

/**
 * The key a licence names; null when this build knows no such kid. A built-in kid always means the
 * built-in key: a test key of the same name is never used in its place.
 */
export function licenseKey(config: Pick<Config, 'licenseTestKey'>, kid: string): KeyObject | null {
  const builtIn = Object.hasOwn(BUILT_IN_KEYS, kid) ? BUILT_IN_KEYS[kid] : undefined;
  if (builtIn !== undefined) return keyObject(builtIn);
  const test = config.licenseTestKey;
  return test !== null && test.kid === kid ? keyObject(test.publicKey) : null;
}
