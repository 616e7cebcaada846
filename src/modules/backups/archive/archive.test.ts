/** The archive itself (§17 rules 1, 3): written from a live data directory, read back, checked. */
import { describe, expect, it } from 'bun:test';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { makeTestApp, type TestApp } from '../../../../tests/helpers/app';
import { bucketDir } from '../../objects/files';
import { sha256Of, textBytes, uploadedObject } from '../../objects/test-support';
import { type KdfParams, passphraseOpens } from './crypt';
import { BUILD_SCHEMA_VERSION } from './database';
import { compressible, type PackSpec, packArchive } from './pack';
import { readArchive } from './read';

/** Small argon2id costs: the format is the subject here, not the KDF's strength. */
const WEAK: KdfParams = { memoryKiB: 64, iterations: 1, parallelism: 1 };

function specFor(t: TestApp, overrides: Partial<PackSpec> = {}): PackSpec {
  const work = mkdtempSync(join(tmpdir(), 'pms-pack-'));
  return {
    database: join(t.deps.config.dataDir, 'pms.db'),
    mediaDir: bucketDir(t.deps, 'cms-media'),
    brandingDir: join(t.deps.config.dataDir, 'branding'),
    licenseDir: join(t.deps.config.dataDir, 'license'),
    includeMedia: true,
    workDir: work,
    part: join(work, 'out.part'),
    target: join(work, 'out.tar.gz'),
    passphrase: null,
    kdf: WEAK,
    about: {
      productVersion: '1.2.3',
      apiVersion: '2.5',
      createdAt: '2026-01-15T12:00:00.000Z',
      hostname: 'test',
      timezone: 'UTC',
    },
    ...overrides,
  };
}

const staging = () => join(mkdtempSync(join(tmpdir(), 'pms-stage-')), 'staging');

describe('an archive written and read back', () => {
  it('holds the manifest, the database, media, branding and license, each with its SHA-256', async () => {
    const t = makeTestApp();
    const a = await uploadedObject(t, 'a.txt', textBytes('alpha'));
    await uploadedObject(t, 'b.txt', textBytes('bravo'));
    mkdirSync(join(t.deps.config.dataDir, 'branding'));
    writeFileSync(join(t.deps.config.dataDir, 'branding', 'logo.png'), 'logo');
    mkdirSync(join(t.deps.config.dataDir, 'license'));
    writeFileSync(join(t.deps.config.dataDir, 'license', 'license.json'), '{}');
    writeFileSync(join(t.deps.config.dataDir, 'license', 'half.part'), 'x');
    const spec = specFor(t);
    let last = 0;
    const packed = await packArchive(spec, (f) => {
      last = f;
    });
    expect(last).toBe(1);
    expect(packed.sha256).toBe(sha256Of(readFileSync(spec.target)));
    expect(packed.schemaVersion).toBe(BUILD_SCHEMA_VERSION);
    const paths = packed.manifest.files.map((f) => f.path);
    expect(paths).toEqual([
      'db.sqlite',
      `media/${a._id}-${sha256Of(textBytes('alpha'))}`,
      expect.stringMatching(/^media\/\d+-/),
      'branding/logo.png',
      'license/license.json',
    ]);
    const out = staging();
    const read = await readArchive(
      { path: spec.target, expectedSha256: packed.sha256, passphrase: null, staging: out, unpack: true },
      () => {},
    );
    expect(read.problems).toEqual([]);
    expect(read.manifest).toEqual(packed.manifest);
    expect(readFileSync(join(out, 'branding', 'logo.png'), 'utf8')).toBe('logo');
    expect(readFileSync(join(out, 'media', 'cms-media', `${a._id}-${sha256Of(textBytes('alpha'))}`), 'utf8')).toBe(
      'alpha',
    );
  });

  it('stores media that does not compress, deflates what does, and reads back as one gzip stream', async () => {
    const t = makeTestApp();
    const noise = new Uint8Array(600 * 1024);
    for (let i = 0; i < noise.length; i += 65536) crypto.getRandomValues(noise.subarray(i, i + 65536));
    const text = textBytes('the same line again\n'.repeat(30_000));
    const video = await uploadedObject(t, 'clip.mp4', noise);
    const page = await uploadedObject(t, 'notes.txt', text);
    expect(compressible(join(bucketDir(t.deps, 'cms-media'), `${video._id}-${sha256Of(noise)}`))).toBe(false);
    expect(compressible(join(bucketDir(t.deps, 'cms-media'), `${page._id}-${sha256Of(text)}`))).toBe(true);
    const spec = specFor(t);
    const packed = await packArchive(spec, () => {});
    // About the noise's size: it cannot shrink, the text shrinks to almost nothing.
    expect(packed.size).toBeGreaterThan(noise.length);
    expect(packed.size).toBeLessThan(noise.length + 200 * 1024);
    const out = staging();
    const read = await readArchive(
      { path: spec.target, expectedSha256: packed.sha256, passphrase: null, staging: out, unpack: true },
      () => {},
    );
    expect(read.problems).toEqual([]);
    const media = join(out, 'media', 'cms-media');
    expect(sha256Of(readFileSync(join(media, `${video._id}-${sha256Of(noise)}`)))).toBe(sha256Of(noise));
    expect(readFileSync(join(media, `${page._id}-${sha256Of(text)}`)).equals(Buffer.from(text))).toBe(true);
    expect(gunzipSync(readFileSync(spec.target)).length).toBeGreaterThan(noise.length + text.length);
  });

  it('encrypts with a passphrase, and only that passphrase opens it', async () => {
    const t = makeTestApp();
    await uploadedObject(t, 'a.txt', textBytes('alpha'));
    const spec = specFor(t, { passphrase: 'correct horse battery' });
    const packed = await packArchive(spec, () => {});
    expect(packed.encrypted).toBe(true);
    const bytes = readFileSync(spec.target);
    expect(bytes.subarray(0, 8).toString()).toBe('PMSBKENC');
    expect(await passphraseOpens(bytes, 'correct horse battery')).toBe(true);
    expect(await passphraseOpens(bytes, 'wrong horse battery')).toBe(false);
    const good = await readArchive(
      {
        path: spec.target,
        expectedSha256: packed.sha256,
        passphrase: 'correct horse battery',
        staging: staging(),
        unpack: false,
      },
      () => {},
    );
    expect(good.problems).toEqual([]);
    const wrong = await readArchive(
      { path: spec.target, expectedSha256: packed.sha256, passphrase: 'wrong', staging: staging(), unpack: false },
      () => {},
    );
    expect(wrong.problems.map((p) => p.code)).toEqual(['decrypt_failed']);
    const none = await readArchive(
      { path: spec.target, expectedSha256: packed.sha256, passphrase: null, staging: staging(), unpack: false },
      () => {},
    );
    expect(none.problems.map((p) => p.code)).toEqual(['decrypt_failed']);
  });

  it('without media holds no media member', async () => {
    const t = makeTestApp();
    await uploadedObject(t, 'a.txt', textBytes('alpha'));
    const packed = await packArchive(specFor(t, { includeMedia: false }), () => {});
    expect(packed.manifest.files.map((f) => f.path)).toEqual(['db.sqlite']);
    expect(packed.manifest.includesMedia).toBe(false);
  });
});
