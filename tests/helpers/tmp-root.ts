/**
 * Preloaded by `bun test` (bunfig.toml): every temporary directory of a test run goes under one
 * directory of its own, removed once the run is over. The tests make thousands (a data directory
 * per test app, backup and media scratch, database copies) and most of them leave theirs behind:
 * before this, every run of the suite left about 1 900 directories and 2 GB in /tmp.
 * `os.tmpdir()` reads TMPDIR on every call, and child processes (the e2e daemons) inherit it.
 */
import { afterAll } from 'bun:test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const RUN_TMP_PREFIX = 'pms-run-';

const root = mkdtempSync(join(tmpdir(), RUN_TMP_PREFIX));
process.env.TMPDIR = root;

afterAll(() => {
  rmSync(root, { recursive: true, force: true });
});
