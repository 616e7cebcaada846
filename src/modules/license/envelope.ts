/**
 * The licence file (§19) as bytes: `{kid, payload, signature}`, `payload` base64url of the licence
 * JSON, `signature` base64url of an Ed25519 signature over exactly the bytes `payload` encodes (the
 * licence JSON as the vendor wrote it: nothing is re-serialised before checking). Pure: no Deps, no
 * files; the service, the CLI and the tests share it. Ed25519 is node:crypto's, built into Bun.
 */
import { createPrivateKey, createPublicKey, generateKeyPairSync, type KeyObject, sign, verify } from 'node:crypto';
import { type AppError, badRequest, invalid } from '../../http/errors';

/** A licence file as read: the key id, the licence JSON bytes and the signature bytes. */
export interface Envelope {
  kid: string;
  /** The `payload` text as sent (kept to write the file back byte for byte). */
  payloadText: string;
  payload: Uint8Array;
  signature: Uint8Array;
}

const BASE64URL = /^[A-Za-z0-9_-]*$/;
const KID = /^[A-Za-z0-9._-]{1,64}$/;

/** Bytes of strict base64url (no padding, no other characters); null when it is not. */
export function fromBase64url(text: string): Uint8Array | null {
  if (!BASE64URL.test(text) || text.length % 4 === 1) return null;
  const bytes = Buffer.from(text, 'base64url');
  // Unused trailing bits must be zero, so one licence has one spelling.
  return bytes.toString('base64url') === text ? new Uint8Array(bytes) : null;
}

const unparseable = (): AppError =>
  badRequest('the license file is not valid: expected the JSON object {kid, payload, signature} the vendor sent');

function field(file: Record<string, unknown>, name: 'kid' | 'payload' | 'signature'): string {
  const value = file[name];
  if (typeof value !== 'string' || value === '') throw invalid(`/${name}`, 'is required (a string)');
  return value;
}

/** Check 1 (parse): the file's JSON text into its parts; 400 naming what is wrong. */
export function parseEnvelope(text: string): Envelope {
  let file: unknown;
  try {
    file = JSON.parse(text.replace(/^\uFEFF/, ''));
  } catch {
    throw unparseable();
  }
  if (file === null || typeof file !== 'object' || Array.isArray(file)) throw unparseable();
  const fields = file as Record<string, unknown>;
  const kid = field(fields, 'kid');
  if (!KID.test(kid)) throw invalid('/kid', 'must be 1-64 of A-Z a-z 0-9 . _ -');
  const payloadText = field(fields, 'payload');
  const payload = payloadText.length > 16384 ? null : fromBase64url(payloadText);
  if (!payload) throw invalid('/payload', 'must be base64url (without padding) of at most 12 KiB');
  const signature = fromBase64url(field(fields, 'signature'));
  if (signature?.length !== 64) throw invalid('/signature', 'must be base64url of 64 bytes (Ed25519)');
  return { kid, payloadText, payload, signature };
}

/** A public key from its raw 32 bytes in base64url; null when they are no Ed25519 key. */
export function publicKeyOf(base64url: string): KeyObject | null {
  try {
    return createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: base64url }, format: 'jwk' });
  } catch {
    return null;
  }
}

/** Whether `signature` is the key's Ed25519 signature over `payload`. */
export function signatureValid(envelope: Envelope, key: KeyObject): boolean {
  try {
    return verify(null, envelope.payload, key, envelope.signature);
  } catch {
    return false;
  }
}

/** The licence file's text: `{kid, payload, signature}` (what is stored and what `sign` prints). */
export function envelopeText(envelope: Pick<Envelope, 'kid' | 'payloadText' | 'signature'>): string {
  const signature = Buffer.from(envelope.signature).toString('base64url');
  return `${JSON.stringify({ kid: envelope.kid, payload: envelope.payloadText, signature }, null, 2)}\n`;
}

/** Signs licence JSON bytes with a PKCS#8 PEM private key: the licence file's text. */
export function signLicenseBytes(payload: Uint8Array, privateKeyPem: string, kid: string): string {
  if (!KID.test(kid)) throw new Error('the kid must be 1-64 of A-Z a-z 0-9 . _ -');
  const key = createPrivateKey(privateKeyPem);
  if (key.asymmetricKeyType !== 'ed25519') throw new Error('the key is not an Ed25519 private key');
  const signature = new Uint8Array(sign(null, payload, key));
  return envelopeText({ kid, payloadText: Buffer.from(payload).toString('base64url'), signature });
}

/** A new key pair: the private key as PKCS#8 PEM, the public key as base64url of its 32 raw bytes. */
export function newKeyPair(): { privateKeyPem: string; publicKey: string } {
  const { publicKey, privateKey } = generateKeyPairSync('ed25519');
  const jwk = publicKey.export({ format: 'jwk' });
  return { privateKeyPem: String(privateKey.export({ format: 'pem', type: 'pkcs8' })), publicKey: String(jwk.x) };
}
