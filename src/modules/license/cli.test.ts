import { describe, expect, it } from 'bun:test';
import { mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { makeTestApp } from '../../../tests/helpers/app';
import { type CliIo, LICENSE_USAGE, licenseCommand } from './cli';
import { parseEnvelope, publicKeyOf, signatureValid } from './envelope';
import { T0, T0_MS } from './test-support';

function run(args: string[]) {
  const io = { stdout: '', stderr: '' };
  const cli: CliIo = {
    out: (text) => {
      io.stdout += text;
    },
    err: (text) => {
      io.stderr += text;
    },
    now: () => T0_MS,
  };
  return { code: licenseCommand(args, cli), ...io };
}

const scratch = () => mkdtempSync(join(tmpdir(), 'pms-license-cli-'));

/** A key made by `keygen` in `dir`: its file and the PMS_LICENSE_TEST_KEY value printed. */
function keygen(dir: string, kid?: string) {
  const keyFile = join(dir, 'key.pem');
  const res = run(['keygen', '--out', keyFile, ...(kid ? ['--kid', kid] : [])]);
  expect(res.code).toBe(0);
  const line = /^PMS_LICENSE_TEST_KEY=(.+)\n$/.exec(res.stdout)?.[1] ?? '';
  return { keyFile, testKey: line, res };
}

describe('pmsd license keygen', () => {
  it('writes a PKCS#8 private key only its owner reads, and prints the PMS_LICENSE_TEST_KEY line', () => {
    const dir = scratch();
    const { keyFile, testKey, res } = keygen(dir, 'acme-1');
    expect(readFileSync(keyFile, 'utf8')).toStartWith('-----BEGIN PRIVATE KEY-----');
    expect(statSync(keyFile).mode & 0o777).toBe(0o600);
    expect(testKey).toMatch(/^acme-1:[A-Za-z0-9_-]{43}$/);
    expect(res.stderr).toBe(`private key written to ${keyFile}; keep it secret\n`);
  });

  it('never writes over an existing file; without --out it prints the usage (exit 2)', () => {
    const dir = scratch();
    const { keyFile } = keygen(dir);
    const before = readFileSync(keyFile, 'utf8');
    const again = run(['keygen', '--out', keyFile]);
    expect(again.code).toBe(1);
    expect(again.stderr).toStartWith(`pmsd: cannot write ${keyFile}: `);
    expect(readFileSync(keyFile, 'utf8')).toBe(before);
    expect(run(['keygen'])).toEqual({ code: 2, stdout: '', stderr: LICENSE_USAGE });
    expect(run(['keygen', '--out', join(dir, 'k2'), '--kid', 'a b']).code).toBe(1);
    expect(run(['frobnicate'])).toEqual({ code: 2, stdout: '', stderr: LICENSE_USAGE });
    expect(run(['help'])).toEqual({ code: 0, stdout: LICENSE_USAGE, stderr: '' });
  });
});

describe('pmsd license sign', () => {
  it('fills in v, product, licenseId and issuedAt, signs with the key, and the daemon installs the result', async () => {
    const dir = scratch();
    const { keyFile, testKey } = keygen(dir);
    const input = join(dir, 'licence.json');
    writeFileSync(
      input,
      JSON.stringify({ customer: 'ACME Arena', expiresAt: '2027-01-15T00:00:00Z', limits: { users: 5 } }),
    );
    const res = run(['sign', input, '--key', keyFile]);
    expect(res.code).toBe(0);
    const envelope = parseEnvelope(res.stdout);
    expect(envelope.kid).toBe('test');
    const [kid, publicKey] = testKey.split(':') as [string, string];
    const key = publicKeyOf(publicKey);
    expect(key && signatureValid(envelope, key)).toBe(true);
    expect(JSON.parse(new TextDecoder().decode(envelope.payload))).toEqual({
      v: 1,
      product: 'pms',
      licenseId: expect.stringMatching(/^L-[0-9a-f-]{36}$/),
      issuedAt: T0,
      customer: 'ACME Arena',
      expiresAt: '2027-01-15T00:00:00Z',
      limits: { users: 5 },
    });

    const t = makeTestApp({ start: T0, config: { licenseTestKey: { kid, publicKey } } });
    const installed = await t.call('PUT', '/license', {
      as: 'admin',
      rawBody: res.stdout,
      headers: { 'content-type': 'application/octet-stream' },
    });
    expect(installed.body).toMatchObject({ status: 'valid', customer: 'ACME Arena', limits: { users: 5 } });
  });

  it('writes to --out with the kid given; refuses a licence the daemon would not read', () => {
    const dir = scratch();
    const { keyFile } = keygen(dir, 'acme-1');
    const input = join(dir, 'licence.json');
    writeFileSync(input, JSON.stringify({ licenseId: 'L-7', customer: 'ACME', issuedAt: T0 }));
    const out = join(dir, 'licence.lic');
    expect(run(['sign', input, '--key', keyFile, '--kid', 'acme-1', '--out', out])).toEqual({
      code: 0,
      stdout: '',
      stderr: `signed license written to ${out}\n`,
    });
    expect(parseEnvelope(readFileSync(out, 'utf8')).kid).toBe('acme-1');

    writeFileSync(input, JSON.stringify({ customer: 'ACME', graceDays: -1 }));
    expect(run(['sign', input, '--key', keyFile])).toEqual({
      code: 1,
      stdout: '',
      stderr: `pmsd: ${input}: graceDays must be an integer from 0 to 365\n`,
    });
    writeFileSync(input, JSON.stringify({ customer: 'ACME', product: 'other' }));
    expect(run(['sign', input, '--key', keyFile]).stderr).toBe(`pmsd: ${input}: product must be "pms"\n`);
    writeFileSync(input, '[]');
    expect(run(['sign', input, '--key', keyFile]).stderr).toBe(`pmsd: ${input}: not a JSON object\n`);
    writeFileSync(input, JSON.stringify({ customer: 'ACME' }));
    expect(run(['sign', input, '--key', input]).stderr).toStartWith(`pmsd: cannot sign with ${input}: `);
    expect(run(['sign', input]).code).toBe(2);
  });

  it('is reached through pmsd itself (src/main.ts), with no configuration needed', async () => {
    const dir = scratch();
    const main = resolve(import.meta.dir, '../../main.ts');
    const proc = Bun.spawn([process.execPath, main, 'license', 'keygen', '--out', join(dir, 'k.pem'), '--kid', 'x'], {
      env: { ...process.env, PMS_HTTP_PORT: 'not a port' },
      stdout: 'pipe',
      stderr: 'pipe',
    });
    const [code, stdout] = await Promise.all([proc.exited, new Response(proc.stdout).text()]);
    expect(code).toBe(0);
    expect(stdout).toMatch(/^PMS_LICENSE_TEST_KEY=x:[A-Za-z0-9_-]{43}\n$/);
  });
});
