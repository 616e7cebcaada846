/**
 * Health rules (§4 rule 4): `[state, operator, operand]`, validated on write, compiled once per rule
 * set and evaluated on every value change. The worst matching rule gives the target state.
 */
import type { HealthRule } from '../../db/schema';
import { longerThan } from '../../http/characters';
import { invalid } from '../../http/errors';
import type { VariableRow } from './state';

export const HEALTH_STATES = { warning: 1, error: 2 } as const;
const OPERATORS = ['==', '!=', '>', '>=', '<', '<=', 'contains', '!contains', 'matches'] as const;
type Operator = (typeof OPERATORS)[number];
export const MAX_RULES = 20;
const MAX_PATTERN = 200;
const RULE_SHAPE = `must be [state, operator, operand]: state warning or error, operator one of ${OPERATORS.join(' ')}`;

/** Nested quantifiers such as `(a+)+` or `(a*)*` backtrack catastrophically; they are refused. */
const NESTED_QUANTIFIER = /\((?:[^()\\]|\\.)*[+*}](?:[^()\\]|\\.)*\)\s*[+*{]/;

function compilePattern(pattern: string, path: string): RegExp {
  if (longerThan(pattern, MAX_PATTERN)) throw invalid(path, `must have a pattern of at most ${MAX_PATTERN} characters`);
  if (NESTED_QUANTIFIER.test(pattern)) throw invalid(path, 'must not nest quantifiers (the pattern could run forever)');
  try {
    return new RegExp(pattern);
  } catch {
    throw invalid(path, 'must have a valid regular expression');
  }
}

/** The rules of a body, checked; a malformed rule is 400 at `/healthRules/<n>`. */
export function healthRulesOf(value: unknown): HealthRule[] {
  if (!Array.isArray(value)) throw invalid('/healthRules', 'must be an array of rules [state, operator, operand]');
  if (value.length > MAX_RULES) throw invalid('/healthRules', `must have at most ${MAX_RULES} entries`);
  return value.map((rule, n) => {
    const path = `/healthRules/${n}`;
    if (!Array.isArray(rule) || rule.length !== 3) throw invalid(path, RULE_SHAPE);
    const [state, operator, operand] = rule as unknown[];
    if (state !== 'warning' && state !== 'error') throw invalid(path, RULE_SHAPE);
    if (typeof operator !== 'string' || !(OPERATORS as readonly string[]).includes(operator))
      throw invalid(path, RULE_SHAPE);
    if (typeof operand !== 'string' && typeof operand !== 'number' && typeof operand !== 'boolean')
      throw invalid(path, 'must have a string, number or boolean operand');
    if (typeof operand === 'number' && !Number.isFinite(operand)) throw invalid(path, 'must have a finite operand');
    if (operator === 'matches') compilePattern(String(operand), path);
    return [state, operator, operand] as HealthRule;
  });
}

interface Compiled {
  state: number;
  test: (value: string) => boolean;
}

function numberOf(text: string): number | null {
  if (text.trim() === '') return null;
  const n = Number(text);
  return Number.isFinite(n) ? n : null;
}

function compileRule([state, operator, operand]: HealthRule): Compiled {
  const text = String(operand);
  const num = numberOf(text);
  const op = operator as Operator;
  const order = (cmp: (a: number, b: number) => boolean) => (v: string) => {
    const n = numberOf(v);
    return n !== null && num !== null && cmp(n, num);
  };
  const equal = (v: string) => {
    const n = numberOf(v);
    return n !== null && num !== null ? n === num : v === text;
  };
  let test: (value: string) => boolean;
  switch (op) {
    case '==':
      test = equal;
      break;
    case '!=':
      test = (v) => !equal(v);
      break;
    case '>':
      test = order((a, b) => a > b);
      break;
    case '>=':
      test = order((a, b) => a >= b);
      break;
    case '<':
      test = order((a, b) => a < b);
      break;
    case '<=':
      test = order((a, b) => a <= b);
      break;
    case 'contains':
      test = (v) => v.includes(text);
      break;
    case '!contains':
      test = (v) => !v.includes(text);
      break;
    case 'matches': {
      const re = new RegExp(text);
      test = (v) => re.test(v);
      break;
    }
  }
  return { state: HEALTH_STATES[state as keyof typeof HEALTH_STATES] ?? 0, test };
}

/** Compiled rule sets, keyed by their JSON text (rule sets are few and small). */
const compiledSets = new Map<string, Compiled[]>();
const MAX_CACHED_SETS = 5000;

function compiled(rules: HealthRule[]): Compiled[] {
  const key = JSON.stringify(rules);
  let set = compiledSets.get(key);
  if (!set) {
    if (compiledSets.size >= MAX_CACHED_SETS) compiledSets.clear();
    set = rules.map(compileRule);
    compiledSets.set(key, set);
  }
  return set;
}

/** The state the value calls for: the worst matching rule, 0 when none matches. */
export function targetState(rules: HealthRule[], value: string): number {
  let worst = 0;
  for (const rule of compiled(rules)) if (rule.state > worst && rule.test(value)) worst = rule.state;
  return worst;
}

export interface HealthFields {
  healthState: number;
  healthPendingState: number | null;
  healthPendingSince: number | null;
}

type HealthInput = Pick<
  VariableRow,
  | 'healthEnabled'
  | 'availableInSubsystem'
  | 'healthRules'
  | 'healthGracePeriod'
  | 'lastValue'
  | 'lastValueUpdatedAt'
  | 'healthState'
  | 'healthPendingState'
  | 'healthPendingSince'
>;

const UNKNOWN: HealthFields = { healthState: -1, healthPendingState: null, healthPendingSince: null };

/**
 * The health a variable should have now, given its stored state and current value. A better target
 * takes effect at once, a worse one only after it kept matching for `healthGracePeriod` seconds.
 * From unknown (-1) a worse target waits with the state still unknown; a healthy target applies at once.
 */
export function evaluateHealth(row: HealthInput, now: number): HealthFields {
  if (!row.healthEnabled || !row.availableInSubsystem || row.lastValueUpdatedAt === null) return UNKNOWN;
  const target = targetState(row.healthRules, row.lastValue);
  const current = row.healthState;
  if (target <= Math.max(current, 0))
    return { healthState: target, healthPendingState: null, healthPendingSince: null };
  const since = row.healthPendingState === target && row.healthPendingSince !== null ? row.healthPendingSince : now;
  if (now - since >= row.healthGracePeriod * 1000) {
    return { healthState: target, healthPendingState: null, healthPendingSince: null };
  }
  return { healthState: current, healthPendingState: target, healthPendingSince: since };
}

export function sameHealth(a: HealthFields, b: HealthFields): boolean {
  return (
    a.healthState === b.healthState &&
    a.healthPendingState === b.healthPendingState &&
    a.healthPendingSince === b.healthPendingSince
  );
}

/** "warning when value > 50; error when value matches ^ERR" */
export function healthRulesText(rules: HealthRule[]): string {
  return rules.map(([state, operator, operand]) => `${state} when value ${operator} ${String(operand)}`).join('; ');
}
