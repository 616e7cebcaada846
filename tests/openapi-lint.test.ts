/**
 * The served OpenAPI document (GET /api/v1/openapi.json) is valid 3.1 and lint clean, and a typed client
 * generated from it compiles (issue 16 item 19): integrators generate clients from it. The tools run
 * from node_modules under Node, offline, as CI has them after `npm ci`: Redocly CLI with the committed
 * `redocly.yaml` (recommended rules; what is switched off says why there), openapi-typescript, tsc.
 */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { makeTestApp } from './helpers/app';

const ROOT = join(import.meta.dir, '..');
const REDOCLY = join(ROOT, 'node_modules/@redocly/cli/bin/cli.js');
const OPENAPI_TS = join(ROOT, 'node_modules/openapi-typescript/bin/cli.js');
const TSC = join(ROOT, 'node_modules/typescript/bin/tsc');
const TOOL_TIMEOUT = 30_000;

const dir = mkdtempSync(join(tmpdir(), 'pms-openapi-'));
const documentPath = join(dir, 'openapi.json');

beforeAll(async () => {
  const res = await makeTestApp().call('GET', '/api/v1/openapi.json');
  expect(res.status).toBe(200);
  writeFileSync(documentPath, res.text);
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function node(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const proc = Bun.spawn(['node', ...args], {
    cwd: dir,
    env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', NO_COLOR: '1' },
    stdout: 'pipe',
    stderr: 'pipe',
  });
  const [stdout, stderr, code] = await Promise.all([
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
    proc.exited,
  ]);
  return { code, stdout, stderr };
}

interface LintReport {
  totals: { errors: number; warnings: number };
  problems: Array<{ ruleId: string; severity: string; message: string; location: Array<{ pointer?: string }> }>;
}

async function lint(path: string): Promise<LintReport> {
  const out = await node([REDOCLY, 'lint', path, '--config', join(ROOT, 'redocly.yaml'), '--format', 'json']);
  try {
    return JSON.parse(out.stdout) as LintReport;
  } catch {
    throw new Error(`redocly lint gave no report (exit ${out.code}):\n${out.stdout}\n${out.stderr}`);
  }
}

describe('the OpenAPI document under Redocly CLI (redocly.yaml)', () => {
  it(
    'has no error and no warning',
    async () => {
      const report = await lint(documentPath);
      const problems = report.problems.map(
        (p) => `${p.severity} ${p.ruleId}: ${p.message} at ${p.location[0]?.pointer ?? '?'}`,
      );
      expect(problems).toEqual([]);
      expect(report.totals).toMatchObject({ errors: 0, warnings: 0 });
    },
    TOOL_TIMEOUT,
  );

  it(
    'would report what the generator once wrote: a draft-07 tuple, a tag without a description',
    async () => {
      const path = join(dir, 'draft-07.json');
      const tuple = { type: 'array', items: [{ type: 'string' }], additionalItems: false };
      const ok = { description: 'OK', content: { 'application/json': { schema: tuple } } };
      writeFileSync(
        path,
        JSON.stringify({
          openapi: '3.1.0',
          info: { title: 't', version: '1', license: { name: 'Proprietary' } },
          servers: [{ url: '/' }],
          tags: [{ name: 'x' }],
          paths: {
            '/a': {
              get: {
                tags: ['x'],
                operationId: 'a',
                summary: 'a',
                security: [],
                responses: { 200: ok, 400: { description: 'Bad' } },
              },
            },
          },
        }),
      );
      const report = await lint(path);
      expect(report.problems.map((p) => `${p.severity} ${p.ruleId}`).sort()).toEqual([
        'error struct',
        'error struct',
        'warn tag-description',
      ]);
    },
    TOOL_TIMEOUT,
  );
});

/** A small client as an integrator writes it against the generated types; `strict` must accept it. */
const CLIENT = `import type { components, paths } from './types';

type ErrorBody = components['schemas']['Error'];
type RoleOp = paths['/api/v1/roles/{id}']['get'];
type Role = RoleOp['responses'][200]['content']['application/json'];
type Login = paths['/api/v1/auth/login']['post']['requestBody']['content']['application/json'];
type Variable = paths['/api/v1/subsystem/{id}/variables/{ref}']['get']['responses'][200]['content']['application/json'];

export async function getRole(base: string, token: string, id: RoleOp['parameters']['path']['id']): Promise<Role> {
  const res = await fetch(\`\${base}/api/v1/roles/\${id}\`, { headers: { authorization: \`Bearer \${token}\` } });
  if (!res.ok) {
    const error = (await res.json()) as ErrorBody;
    throw new Error(\`\${error.statusCode} \${error.code}: \${error.message} (\${error.requestId})\`);
  }
  return (await res.json()) as Role;
}

export const login: Login = { username: 'admin', password: 'secret' };
export const describeRole = (role: Role): string => \`\${role.displayName}: \${role.permissions.join(', ')}\`;
// A health rule is a [state, operator, operand] tuple, not an array of anything.
export const firstRule = (v: Variable): [string, string, string | number | boolean] | undefined => v.healthRules[0];
// @ts-expect-error the types are real, not any: a role has no such field
export const missing = (role: Role) => role.noSuchField;
// @ts-expect-error the error code is a closed list
export const teapot: ErrorBody['code'] = 'teapot';
`;

describe('a typed client generated from the document (openapi-typescript)', () => {
  it(
    'compiles under tsc --strict',
    async () => {
      const generated = await node([OPENAPI_TS, documentPath, '--output', join(dir, 'types.d.ts')]);
      expect({ code: generated.code, stderr: generated.stderr }).toMatchObject({ code: 0 });
      writeFileSync(join(dir, 'client.ts'), CLIENT);
      writeFileSync(
        join(dir, 'tsconfig.json'),
        JSON.stringify({
          compilerOptions: {
            strict: true,
            noEmit: true,
            target: 'ES2022',
            module: 'ESNext',
            moduleResolution: 'Bundler',
            lib: ['ES2022', 'DOM'],
            types: [],
            // The generated file is checked too: that it compiles is the point.
            skipLibCheck: false,
          },
          files: ['client.ts', 'types.d.ts'],
        }),
      );
      const checked = await node([TSC, '-p', join(dir, 'tsconfig.json')]);
      expect(checked.stdout + checked.stderr).toBe('');
      expect(checked.code).toBe(0);
    },
    TOOL_TIMEOUT,
  );
});
