/**
 * Variable rules (§8 rules 1-2): the condition, and its evaluation on each value write. Writes reach
 * here from the bus (`variable.changed`, after the writer's commit); a variable no rule watches costs
 * one Map look-up. The Map (variable `_id` → active rule ids) is rebuilt after any alert write or
 * variable delete.
 */
import { and, eq } from 'drizzle-orm';
import { alertRules } from '../../db/schema';
import type { Deps } from '../../deps';
import { type AlertSource, conditionCleared, fire } from './engine';
import { ORDERING_OPERATORS } from './model';
import { type AlertRow, findRule, followWallClock, openIncident, updateRule, variableInfo } from './store';

/** Forgets which rules watch which variable; the next value write reads them again. */
export function dropAlertIndex(deps: Deps): void {
  deps.alerts.ruleIndex = null;
}

function index(deps: Deps): Map<number, number[]> {
  let map = deps.alerts.ruleIndex;
  if (!map) {
    map = new Map();
    const rows = deps.db
      .select({ id: alertRules.id, variableId: alertRules.variableId })
      .from(alertRules)
      .where(and(eq(alertRules.type, 'variable'), eq(alertRules.active, true)))
      .all();
    for (const r of rows) {
      if (r.variableId === null) continue;
      const list = map.get(r.variableId) ?? [];
      list.push(r.id);
      map.set(r.variableId, list);
    }
    // Read inside an open transaction it may hold rules that roll back: used, never kept.
    if (!deps.sqlite.inTransaction) deps.alerts.ruleIndex = map;
  }
  return map;
}

const regexes = new Map<string, RegExp | null>();

export function compileRegex(pattern: string): RegExp | null {
  let re = regexes.get(pattern);
  if (re === undefined) {
    try {
      re = new RegExp(pattern);
    } catch {
      re = null;
    }
    if (regexes.size > 1000) regexes.clear();
    regexes.set(pattern, re);
  }
  return re;
}

function numberOf(text: string): number | null {
  if (text.trim() === '') return null;
  const n = Number(text);
  return Number.isFinite(n) ? n : null;
}

/** Whether `value` meets the rule's condition; numbers compare as numbers, other texts exactly. */
export function conditionHolds(operator: string, target: string, value: string): boolean {
  if (ORDERING_OPERATORS.includes(operator)) {
    const a = numberOf(value);
    const b = numberOf(target);
    if (a === null || b === null) return false;
    if (operator === '>') return a > b;
    if (operator === '>=') return a >= b;
    if (operator === '<') return a < b;
    return a <= b;
  }
  switch (operator) {
    case '==':
    case '!=': {
      const a = numberOf(value);
      const b = numberOf(target);
      const equal = a !== null && b !== null ? a === b : value === target;
      return operator === '==' ? equal : !equal;
    }
    case 'contains':
      return value.includes(target);
    case '!contains':
      return !value.includes(target);
    case 'matches':
      return compileRegex(target)?.test(value) ?? false;
    default:
      return false;
  }
}

function sourceOf(deps: Deps, rule: AlertRow): AlertSource | null {
  if (rule.variableId === null) return null;
  const v = variableInfo(deps, rule.variableId);
  if (!v) return null;
  return { type: 'variable', id: rule.variableId, externalId: v.externalRef, displayName: v.displayName };
}

/** Evaluates one active variable rule against `value` (the variable's current value). */
export function evaluateRule(deps: Deps, rule: AlertRow, value: string): void {
  if (!rule.active || rule.type !== 'variable' || rule.variableId === null) return;
  const source = sourceOf(deps, rule);
  if (!source) return;
  const now = deps.clock.now();
  if (conditionHolds(rule.operator ?? '', rule.value ?? '', value)) {
    const delayMs = rule.delaySeconds * 1000;
    if (delayMs > 0 && !openIncident(deps, rule.id, source.id)) {
      if (rule.pendingSince === null) {
        updateRule(deps, rule.id, { pendingSince: now });
        return;
      }
      if (now - rule.pendingSince < delayMs) return;
    }
    fire(deps, rule, source, value);
    return;
  }
  if (rule.pendingSince !== null) updateRule(deps, rule.id, { pendingSince: null });
  conditionCleared(deps, rule, source.id, value);
}

/** Evaluates a rule against its variable's current value (after a rule write, and when a delay is due). */
export function evaluateNow(deps: Deps, rule: AlertRow): void {
  if (rule.variableId === null) return;
  const v = variableInfo(deps, rule.variableId);
  if (v) evaluateRule(deps, rule, v.lastValue);
}

/** `variable.changed`: the rules watching the variable, if any. */
export function onVariableValue(deps: Deps, variableId: number, value: string): void {
  const ids = index(deps).get(variableId);
  if (ids === undefined) return;
  followWallClock(deps);
  for (const id of ids) {
    const rule = findRule(deps, id);
    if (rule) evaluateRule(deps, rule, value);
  }
}
