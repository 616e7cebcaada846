import { describe, expect, it } from 'bun:test';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError, loadConfig } from '../../config';
import { sha256Hex } from '../../crypto';
import { AppError } from '../../http/errors';
import { DAY_MS, daysRemaining, parseLicense, statusAt } from './document';
import { fromBase64url, parseEnvelope, publicKeyOf, signatureValid } from './envelope';
import { BUILT_IN_KEYS, licenseKey } from './keys';
import { machineIdFrom } from './store';
import { licenseFile, licenseJson, OTHER_KEYS, T0_MS, TEST_KEYS } from './test-support';

const bytes = (text: string) => new TextEncoder().encode(text);
const key = (base64url: string) => {
  const k = publicKeyOf(base64url);
  if (!k) throw new Error('no key');
  return k;
};

/** The AppError a call throws: its status, code, message and detail. */
function refusal(run: () => unknown) {
  try {
    run();
  } catch (err) {
    if (err instanceof AppError) return { status: err.status, code: err.errorCode, message: err.message };
    throw err;
  }
  throw new Error('nothing thrown');
}

describe('signing and verifying (envelope.ts)', () => {
  it('a signed file verifies with its public key, over exactly the licence JSON it carries', () => {
    const text = '{"v":1,  "licenseId":"L-9"}';
    const envelope = parseEnvelope(licenseFile(text));
    expect(new TextDecoder().decode(envelope.payload)).toBe(text);
    expect(envelope.kid).toBe('test-1');
    expect(signatureValid(envelope, key(TEST_KEYS.publicKey))).toBe(true);
  });

  it('another key, a changed payload byte or a changed signature does not verify', () => {
    const envelope = parseEnvelope(licenseFile());
    expect(signatureValid(envelope, key(OTHER_KEYS.publicKey))).toBe(false);
    const payload = new Uint8Array(envelope.payload);
    payload[5] = (payload[5] ?? 0) ^ 1;
    expect(signatureValid({ ...envelope, payload }, key(TEST_KEYS.publicKey))).toBe(false);
    const signature = new Uint8Array(envelope.signature);
    signature[0] = (signature[0] ?? 0) ^ 1;
    expect(signatureValid({ ...envelope, signature }, key(TEST_KEYS.publicKey))).toBe(false);
  });

  it('base64url is strict: no padding, no standard-alphabet characters, one spelling', () => {
    expect(fromBase64url('aGk')).toEqual(bytes('hi'));
    expect(fromBase64url('aGk=')).toBeNull();
    expect(fromBase64url('a+/b')).toBeNull();
    expect(fromBase64url('aGl')).toBeNull();
    expect(fromBase64url('a')).toBeNull();
  });

  it('a file that is not the JSON object {kid, payload, signature} is refused naming what is wrong', () => {
    const file = JSON.parse(licenseFile());
    expect(refusal(() => parseEnvelope('not json'))).toEqual({
      status: 400,
      code: 'bad_request',
      message: 'the license file is not valid: expected the JSON object {kid, payload, signature} the vendor sent',
    });
    expect(refusal(() => parseEnvelope('[1]')).code).toBe('bad_request');
    expect(refusal(() => parseEnvelope(JSON.stringify({ ...file, kid: 7 }))).message).toBe(
      'kid is required (a string)',
    );
    expect(refusal(() => parseEnvelope(JSON.stringify({ ...file, kid: 'a b' }))).message).toBe(
      'kid must be 1-64 of A-Z a-z 0-9 . _ -',
    );
    expect(refusal(() => parseEnvelope(JSON.stringify({ ...file, payload: `${file.payload}=` }))).message).toBe(
      'payload must be base64url (without padding) of at most 12 KiB',
    );
    expect(refusal(() => parseEnvelope(JSON.stringify({ ...file, signature: 'AAAA' }))).message).toBe(
      'signature must be base64url of 64 bytes (Ed25519)',
    );
    expect(parseEnvelope(`\uFEFF${JSON.stringify({ ...file, extra: 1 })}`).kid).toBe('test-1');
  });

  it('the built-in key is a valid Ed25519 public key and its kid always means it', () => {
    const [kid, builtIn] = Object.entries(BUILT_IN_KEYS)[0] ?? ['', ''];
    expect(publicKeyOf(builtIn)).not.toBeNull();
    const config = { licenseTestKey: { kid, publicKey: TEST_KEYS.publicKey } };
    expect(licenseKey(config, kid)?.export({ format: 'jwk' }).x).toBe(builtIn);
    expect(licenseKey({ licenseTestKey: { kid: 't', publicKey: TEST_KEYS.publicKey } }, 't')).not.toBeNull();
    expect(licenseKey({ licenseTestKey: null }, 't')).toBeNull();
    expect(licenseKey({ licenseTestKey: null }, 'toString')).toBeNull();
  });
});

describe('the licence JSON (document.ts)', () => {
  it('reads every field, with the defaults for what is absent', () => {
    expect(parseLicense(bytes(JSON.stringify(licenseJson())))).toEqual({
      v: 1,
      licenseId: 'L-1',
      product: 'pms',
      customer: 'ACME Arena',
      edition: 'pro',
      issuedAt: T0_MS,
      validFrom: T0_MS,
      expiresAt: T0_MS + 365 * DAY_MS,
      graceDays: 14,
      machineId: null,
      limits: { subsystems: 2, players: 1, users: 3 },
    });
    const minimal = { v: 1, licenseId: 'L', product: 'pms', customer: 'C', issuedAt: '2026-01-15T13:00:00+01:00' };
    expect(parseLicense(bytes(JSON.stringify(minimal)))).toMatchObject({
      edition: null,
      validFrom: T0_MS,
      expiresAt: null,
      graceDays: 14,
      machineId: null,
      limits: { subsystems: null, players: null, users: null },
    });
  });

  it.each([
    [{ v: 2 }, 'payload.v must be 1 (the license format this build reads)'],
    [{ licenseId: '' }, 'payload.licenseId must be a string of 1-128 characters'],
    [{ customer: 5 }, 'payload.customer must be a string of 1-200 characters'],
    [{ issuedAt: '2026-01-15' }, 'payload.issuedAt must be an ISO-8601 time with Z or an offset'],
    [{ issuedAt: '2026-02-30T00:00:00Z' }, 'payload.issuedAt must be an ISO-8601 time with Z or an offset'],
    [{ validFrom: '2026-01-15T24:00:00Z' }, 'payload.validFrom must be an ISO-8601 time with Z or an offset'],
    [{ expiresAt: 'soon' }, 'payload.expiresAt must be an ISO-8601 time with Z or an offset, or null'],
    [{ graceDays: 1.5 }, 'payload.graceDays must be an integer from 0 to 365'],
    [{ machineId: 'ABC' }, 'payload.machineId must be 32 lower-case hex characters, or null'],
    [{ limits: [] }, 'payload.limits must be an object'],
    [{ limits: { users: -1 } }, 'payload.limits.users must be an integer from 0 to 1000000'],
  ])('%j is refused: %s', (fields, message) => {
    expect(refusal(() => parseLicense(bytes(JSON.stringify(licenseJson(fields))))).message).toBe(message);
  });

  it('status and days left around expiresAt and the end of grace', () => {
    const license = parseLicense(bytes(JSON.stringify(licenseJson({ expiresAt: new Date(T0_MS).toISOString() }))));
    const exp = T0_MS;
    expect([statusAt(license, exp - 30 * DAY_MS - 1), daysRemaining(license, exp - 30 * DAY_MS - 1)]).toEqual([
      'valid',
      31,
    ]);
    expect([statusAt(license, exp - 30 * DAY_MS), daysRemaining(license, exp - 30 * DAY_MS)]).toEqual(['expiring', 30]);
    expect([statusAt(license, exp - 1), daysRemaining(license, exp - 1)]).toEqual(['expiring', 1]);
    expect([statusAt(license, exp), daysRemaining(license, exp)]).toEqual(['grace', 0]);
    expect(statusAt(license, exp + 14 * DAY_MS - 1)).toBe('grace');
    expect(statusAt(license, exp + 14 * DAY_MS)).toBe('expired');
    const perpetual = { ...license, expiresAt: null };
    expect([statusAt(perpetual, exp + 1e12), daysRemaining(perpetual, exp)]).toEqual(['valid', null]);
  });
});

describe('machine id (store.ts)', () => {
  it('is 32 hex characters of the salted SHA-256 of the first host id file', () => {
    const dir = mkdtempSync(join(tmpdir(), 'pms-machine-'));
    writeFileSync(join(dir, 'machine-id'), '3d1219c7c4c5404aaa1f6d2a48adfda4\n');
    const id = machineIdFrom([join(dir, 'missing'), join(dir, 'machine-id')], join(dir, 'fallback'));
    expect(id).toMatch(/^[0-9a-f]{32}$/);
    expect(id).not.toBe('3d1219c7c4c5404aaa1f6d2a48adfda4');
    expect(id).not.toBe(sha256Hex('3d1219c7c4c5404aaa1f6d2a48adfda4').slice(0, 32));
    expect(machineIdFrom([join(dir, 'machine-id')], join(dir, 'fallback'))).toBe(id);
  });

  it('without host id files, a random id kept in the data directory: the same on every start', () => {
    const dir = mkdtempSync(join(tmpdir(), 'pms-machine-'));
    const fallback = join(dir, 'license', 'machine-id');
    const first = machineIdFrom([join(dir, 'none')], fallback);
    expect(readFileSync(fallback, 'utf8')).toMatch(/^[0-9a-f]{32}\n$/);
    expect(machineIdFrom([join(dir, 'none')], fallback)).toBe(first);
    const other = mkdtempSync(join(tmpdir(), 'pms-machine-'));
    expect(machineIdFrom([], join(other, 'machine-id'))).not.toBe(first);
  });
});

describe('PMS_LICENSE_TEST_KEY (config.ts)', () => {
  const env = (value: string) => ({ PMS_DATA_DIR: tmpdir(), PMS_LICENSE_TEST_KEY: value });

  it('is read as <kid>:<base64url public key>; unset is none', () => {
    expect(loadConfig(env(`test-1:${TEST_KEYS.publicKey}`)).licenseTestKey).toEqual({
      kid: 'test-1',
      publicKey: TEST_KEYS.publicKey,
    });
    expect(loadConfig({ PMS_DATA_DIR: tmpdir() }).licenseTestKey).toBeNull();
  });

  it.each(['nokey', `:${TEST_KEYS.publicKey}`, 'test:AAAA', `a b:${TEST_KEYS.publicKey}`])('refuses %s', (value) => {
    expect(() => loadConfig(env(value))).toThrow(ConfigError);
    expect(() => loadConfig(env(value))).toThrow(
      'PMS_LICENSE_TEST_KEY must be <kid>:<base64url Ed25519 public key>, as printed by pmsd license keygen',
    );
  });
});
