/**
 * `pmsd license keygen|sign`: make a test key pair and sign a licence with it, so an integrator can
 * try licences on an appliance started with `PMS_LICENSE_TEST_KEY` (README "Licence"). Needs no
 * configuration and no database. Production licences are signed by the vendor with a key that is
 * not in this repository.
 *
 *   pmsd license keygen --out <private-key.pem> [--kid <kid>]
 *   pmsd license sign <licence.json> --key <private-key.pem> [--kid <kid>] [--out <licence-file>]
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { AppError } from '../../http/errors';
import { PRODUCT, parseLicense } from './document';
import { newKeyPair, signLicenseBytes } from './envelope';

export interface CliIo {
  out(text: string): void;
  err(text: string): void;
  now(): number;
}

export const LICENSE_USAGE = `usage:
  pmsd license keygen --out <private-key.pem> [--kid <kid>]
      writes a new Ed25519 private key (PKCS#8 PEM, mode 0600, never over an existing file) and
      prints the PMS_LICENSE_TEST_KEY line that makes a daemon accept licenses signed with it
  pmsd license sign <license.json> --key <private-key.pem> [--kid <kid>] [--out <file>]
      checks the license JSON, fills in v, product, licenseId and issuedAt when absent, and writes
      the signed license file {kid, payload, signature} (to stdout without --out)
  The kid defaults to "test"; sign with the kid the key was made with.
`;

const DEFAULT_KID = 'test';

/** `--name value` flags and the other arguments; null when a flag has no value or is unknown. */
function parseArgs(args: string[], known: string[]): { flags: Record<string, string>; rest: string[] } | null {
  const flags: Record<string, string> = {};
  const rest: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] ?? '';
    if (!arg.startsWith('--')) {
      rest.push(arg);
      continue;
    }
    const name = arg.slice(2);
    const value = args[i + 1];
    if (!known.includes(name) || value === undefined) return null;
    flags[name] = value;
    i++;
  }
  return { flags, rest };
}

function keygen(args: string[], io: CliIo): number {
  const parsed = parseArgs(args, ['out', 'kid']);
  const out = parsed?.flags.out;
  if (!parsed || !out || parsed.rest.length > 0) return usage(io);
  const kid = parsed.flags.kid ?? DEFAULT_KID;
  if (!/^[A-Za-z0-9._-]{1,64}$/.test(kid)) return fail(io, 'the kid must be 1-64 of A-Z a-z 0-9 . _ -');
  const { privateKeyPem, publicKey } = newKeyPair();
  try {
    writeFileSync(out, privateKeyPem, { mode: 0o600, flag: 'wx' });
  } catch (err) {
    return fail(io, `cannot write ${out}: ${(err as Error).message}`);
  }
  io.err(`private key written to ${out}; keep it secret\n`);
  io.out(`PMS_LICENSE_TEST_KEY=${kid}:${publicKey}\n`);
  return 0;
}

/** The licence JSON with `v`, `product`, `licenseId` and `issuedAt` filled in when absent. */
function withDefaults(doc: Record<string, unknown>, now: number): Record<string, unknown> {
  return {
    v: 1,
    product: PRODUCT,
    licenseId: `L-${crypto.randomUUID()}`,
    issuedAt: new Date(now).toISOString(),
    ...doc,
  };
}

function sign(args: string[], io: CliIo): number {
  const parsed = parseArgs(args, ['key', 'kid', 'out']);
  const keyFile = parsed?.flags.key;
  const input = parsed?.rest[0];
  if (!parsed || !keyFile || !input || parsed.rest.length !== 1) return usage(io);
  let doc: unknown;
  try {
    doc = JSON.parse(readFileSync(input, 'utf8'));
  } catch (err) {
    return fail(io, `${input}: not readable JSON (${(err as Error).message})`);
  }
  if (doc === null || typeof doc !== 'object' || Array.isArray(doc)) return fail(io, `${input}: not a JSON object`);
  const payload = new TextEncoder().encode(JSON.stringify(withDefaults(doc as Record<string, unknown>, io.now())));
  try {
    const license = parseLicense(payload);
    if (license.product !== PRODUCT) return fail(io, `${input}: product must be "${PRODUCT}"`);
  } catch (err) {
    if (err instanceof AppError) return fail(io, `${input}: ${err.message.replace(/^payload\./, '')}`);
    throw err;
  }
  let file: string;
  try {
    file = signLicenseBytes(payload, readFileSync(keyFile, 'utf8'), parsed.flags.kid ?? DEFAULT_KID);
  } catch (err) {
    return fail(io, `cannot sign with ${keyFile}: ${(err as Error).message}`);
  }
  if (parsed.flags.out === undefined) io.out(file);
  else {
    try {
      writeFileSync(parsed.flags.out, file);
    } catch (err) {
      return fail(io, `cannot write ${parsed.flags.out}: ${(err as Error).message}`);
    }
    io.err(`signed license written to ${parsed.flags.out}\n`);
  }
  return 0;
}

function usage(io: CliIo): number {
  io.err(LICENSE_USAGE);
  return 2;
}

function fail(io: CliIo, message: string): number {
  io.err(`pmsd: ${message}\n`);
  return 1;
}

/** Runs `pmsd license <args>`; the exit code. */
export function licenseCommand(args: string[], io: CliIo): number {
  const [sub, ...rest] = args;
  if (sub === 'keygen') return keygen(rest, io);
  if (sub === 'sign') return sign(rest, io);
  if (sub === 'help' || sub === '--help' || sub === '-h') {
    io.out(LICENSE_USAGE);
    return 0;
  }
  return usage(io);
}
