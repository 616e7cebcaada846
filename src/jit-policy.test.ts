import { describe, expect, it } from 'bun:test';
import { readFileSync } from 'node:fs';

const PROBE = new URL('../tests/helpers/jit-probe.ts', import.meta.url).pathname;

/** After how many calls the DFG compiled the probe's function (null: not within `limit`). */
function compiledAfter(mode: 'policy' | 'normal' | 'busy' | 'busy-quiet', limit: number): number | null {
  const run = Bun.spawnSync([process.execPath, PROBE, mode, String(limit)], { stderr: 'pipe' });
  if (run.exitCode !== 0) throw new Error(`jit-probe exited ${run.exitCode}: ${run.stderr.toString()}`);
  return (JSON.parse(run.stdout.toString()) as { compiledAfter: number | null }).compiledAfter;
}

describe('the JIT policy', () => {
  it('keeps code called 5 000 times in the interpreter, which the normal policy optimizes', () => {
    expect(compiledAfter('normal', 5_000)).not.toBeNull();
    expect(compiledAfter('policy', 5_000)).toBeNull();
  });

  it('still optimizes code that runs hot', () => {
    expect(compiledAfter('policy', 1_000_000)).not.toBeNull();
  });

  it('follows the load: the normal policy while the daemon is busy, the quiet one again once it is quiet', () => {
    expect(compiledAfter('busy', 5_000)).not.toBeNull();
    expect(compiledAfter('busy-quiet', 5_000)).toBeNull();
  });

  it('is set by the first module main.ts imports', () => {
    const main = readFileSync(new URL('./main.ts', import.meta.url), 'utf8');
    expect(main.match(/^import .*$/m)?.[0]).toBe("import './jit-policy';");
  });
});
