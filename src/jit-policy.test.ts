import { describe, expect, it } from 'bun:test';
import { readFileSync } from 'node:fs';

const PROBE = new URL('../tests/helpers/jit-probe.ts', import.meta.url).pathname;

/** How many times the DFG compiled the probe's function after `calls` calls, twice over. */
function dfgCompiles(mode: 'policy' | 'normal', calls: number): number {
  const run = Bun.spawnSync([process.execPath, PROBE, mode, String(calls)], { stderr: 'pipe' });
  if (run.exitCode !== 0) throw new Error(`jit-probe exited ${run.exitCode}: ${run.stderr.toString()}`);
  return (JSON.parse(run.stdout.toString()) as { dfg: number }).dfg;
}

describe('the JIT policy', () => {
  it('keeps code that runs a few thousand times in the interpreter, which the normal policy optimizes', () => {
    expect(dfgCompiles('normal', 5_000)).toBeGreaterThan(0);
    expect(dfgCompiles('policy', 5_000)).toBe(0);
  });

  it('still optimizes code that runs hot', () => {
    expect(dfgCompiles('policy', 500_000)).toBeGreaterThan(0);
  });

  it('is set by the first module main.ts imports', () => {
    const main = readFileSync(new URL('./main.ts', import.meta.url), 'utf8');
    expect(main.match(/^import .*$/m)?.[0]).toBe("import './jit-policy';");
  });
});
