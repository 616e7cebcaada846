import { describe, expect, it } from 'bun:test';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { RUN_TMP_PREFIX } from './tmp-root';

describe('temporary directories of a test run', () => {
  it('are made under the run’s own directory, which the run removes at its end', () => {
    const made = mkdtempSync(join(tmpdir(), 'pms-test-'));
    expect(basename(dirname(made)).startsWith(RUN_TMP_PREFIX)).toBe(true);
    expect(existsSync(made)).toBe(true);
  });
});
