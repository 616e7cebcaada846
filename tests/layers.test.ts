/**
 * The layer rules of ARCHITECTURE.md, checked on the import graph of `src/` (type-only imports
 * included, tests and test support left out): no import circle, and nothing below the feature
 * modules (`core/`, `db/`, `http/`, `realtime/`, `rpc/`, `jobs/`, `deps.ts` and the base files)
 * imports one, except `deps.ts` naming the state a module keeps (a `state.ts` that imports no Deps).
 * A new import that breaks a rule fails here with the path that breaks it.
 */
import { describe, expect, it } from 'bun:test';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

const ROOT = resolve(import.meta.dir, '..');
const SRC = join(ROOT, 'src');

function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...sourceFiles(path));
    else if (
      name.endsWith('.ts') &&
      !name.endsWith('.d.ts') &&
      !name.endsWith('.test.ts') &&
      !name.includes('test-support')
    )
      out.push(path);
  }
  return out;
}

const IMPORT =
  /(?:^|\n)\s*(?:import|export)\s[^'";]*?from\s*['"](\.{1,2}\/[^'"]+)['"]|import\(\s*['"](\.{1,2}\/[^'"]+)['"]\s*\)/g;

function resolveImport(from: string, spec: string): string | null {
  const base = resolve(dirname(from), spec);
  for (const candidate of [`${base}.ts`, join(base, 'index.ts'), base]) {
    if (existsSync(candidate) && statSync(candidate).isFile()) return candidate;
  }
  return null;
}

/** file (relative to src/) → the src files it imports. */
export function importGraph(): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of sourceFiles(SRC)) {
    const text = readFileSync(file, 'utf8');
    const targets = new Set<string>();
    for (const m of text.matchAll(IMPORT)) {
      const spec = m[1] ?? m[2];
      if (!spec) continue;
      const target = resolveImport(file, spec);
      if (target?.startsWith(SRC)) targets.add(relative(SRC, target));
    }
    graph.set(relative(SRC, file), [...targets].sort());
  }
  return graph;
}

/** The strongly connected components with more than one file (Tarjan), each sorted. */
function circles(graph: Map<string, string[]>): string[][] {
  let index = 0;
  const indexOf = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string) => {
    indexOf.set(v, index);
    low.set(v, index);
    index += 1;
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!indexOf.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v) ?? 0, low.get(w) ?? 0));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v) ?? 0, indexOf.get(w) ?? 0));
    }
    if (low.get(v) === indexOf.get(v)) {
      const component: string[] = [];
      let w: string | undefined;
      do {
        w = stack.pop();
        if (w === undefined) break;
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1 || (graph.get(v) ?? []).includes(v)) found.push(component.sort());
    }
  };
  for (const v of graph.keys()) if (!indexOf.has(v)) visit(v);
  return found.sort((a, b) => (a[0] ?? '').localeCompare(b[0] ?? ''));
}

/** Folders and files below the feature modules. */
const BELOW_MODULES = /^(core|db|http|realtime|rpc|jobs)\/|^(deps|clock|config|log|crypto|prng|version|instant)\.ts$/;
/** What only the top (main, the daemon's assembly, the app) may import. */
const TOP = /^(main|boot|app|daemon)\.ts$/;

function layerViolations(graph: Map<string, string[]>): string[] {
  const out: string[] = [];
  for (const [file, targets] of graph) {
    for (const target of targets) {
      if (BELOW_MODULES.test(file) && target.startsWith('modules/')) {
        const stateOnly = file === 'deps.ts' && /^modules\/[^/]+(\/[^/]+)*\/state\.ts$/.test(target);
        if (!stateOnly) out.push(`${file} -> ${target}`);
      }
      if (TOP.test(target) && !TOP.test(file)) out.push(`${file} -> ${target}`);
    }
  }
  return out.sort();
}

describe('the import graph of src/', () => {
  const graph = importGraph();

  it('reads the tree (a parser that finds nothing would pass everything)', () => {
    expect(graph.size).toBeGreaterThan(150);
    expect(graph.get('app.ts')).toContain('deps.ts');
  });

  it('has no import circle, type-only imports included', () => {
    expect(circles(graph)).toEqual([]);
  });

  it('has nothing below the feature modules import one', () => {
    expect(layerViolations(graph)).toEqual([]);
  });
});
