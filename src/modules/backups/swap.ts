/**
 * The swap of a restore (§17 rule 4.6) and its completion at start-up. Plain files, no Deps: it runs
 * before the database is opened.
 *
 * The live data is several entries of the data directory (the database and its WAL, the cms-media
 * folder, `branding/`, `license/`), so no single rename of a folder can replace it. The restore
 * unpacks the new data into `.restore/staging/` and then decides the swap with one rename: the plan
 * (`.restore/plan.json`, written whole) appears. From that moment the swap is done, whatever happens
 * next: every start finds the plan before it opens anything and carries it out, first moving every
 * live entry into `.restore/previous/`, then every staged entry into place, each move a rename whose
 * repetition is harmless, so a cut at any point is completed by the next start and never leaves a
 * mix. Without a plan, a staging folder is an unfinished restore and is removed: the old data stays.
 *
 * The old data stays in `previous/` until the restored data has started: the plan moves to `check`
 * and counts the starts that try it. A start that fails to open it (the database will not open or
 * migrate, the daemon's assembly throws) puts `previous/` back and starts on the old data, and so does
 * the start after `MAX_ATTEMPTS` tries that never finished (a crash loop). The outcome is left for
 * the old data's daemon to record (`backup.restore_failed`). A start that succeeds confirms: the plan
 * moves to `done`, `previous/` is removed, then the plan.
 */
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { syncDir, writeFileDurably } from '../../files';

/** The exit status of a daemon that stops so its next start completes a restore (main.ts). */
export const RESTORE_EXIT_CODE = 75;

/** Starts that may try restored data before it is given up. */
export const MAX_ATTEMPTS = 3;

/** The live entries a restore replaces, relative to the data directory. */
export const LIVE_ENTRIES = ['pms.db', 'pms.db-wal', 'pms.db-shm', 'media/cms-media', 'branding', 'license'] as const;

export interface RestorePlan {
  state: 'swap' | 'check' | 'done';
  /** The archive restored (its name, which every copy of the database knows it by). */
  object: string;
  /** The entries `staging/` holds. */
  staged: string[];
  startedAt: number;
  requestedBy: string;
  license: 'keep' | 'restore';
  includeMedia: boolean;
  /** The pre-restore backup's archive. */
  preRestore: string | null;
  /** Starts that have tried the restored data. */
  attempts: number;
}

/** What a restore that was put back leaves for the old data's daemon to record. */
export interface RestoreOutcome {
  object: string;
  error: string;
  startedAt: number;
  requestedBy: string;
}

export const restoreRoot = (dataDir: string): string => join(dataDir, '.restore');
export const stagingDir = (dataDir: string): string => join(restoreRoot(dataDir), 'staging');
const previousDir = (dataDir: string): string => join(restoreRoot(dataDir), 'previous');
const planPath = (dataDir: string): string => join(restoreRoot(dataDir), 'plan.json');
const outcomePath = (dataDir: string): string => join(restoreRoot(dataDir), 'outcome.json');

function readJson<T>(path: string): T | null {
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as T;
  } catch {
    return null;
  }
}

/** Writes the plan whole: the rename that decides (first call) or records a step. */
export function writePlan(dataDir: string, plan: RestorePlan): void {
  writeFileDurably(planPath(dataDir), JSON.stringify(plan));
  syncDir(restoreRoot(dataDir));
}

export function readPlan(dataDir: string): RestorePlan | null {
  const plan = readJson<RestorePlan>(planPath(dataDir));
  return plan && Array.isArray(plan.staged) && typeof plan.object === 'string' ? plan : null;
}

/** How many more renames a test lets the swap make before it is cut off (a power cut, simulated). */
export const cut = { after: Number.POSITIVE_INFINITY };

function move(from: string, to: string): void {
  if (cut.after-- <= 0) throw new Error('cut off (test)');
  mkdirSync(dirname(to), { recursive: true });
  renameSync(from, to);
}

function syncAll(dataDir: string): void {
  for (const dir of [dataDir, join(dataDir, 'media'), restoreRoot(dataDir), previousDir(dataDir)]) {
    if (existsSync(dir)) syncDir(dir);
  }
}

/** Carries out a decided swap; repeating any part of it is harmless. */
export function rollForward(dataDir: string, plan: RestorePlan): void {
  const staged = new Set(plan.staged);
  const live = (e: string) => join(dataDir, e);
  const staging = (e: string) => join(stagingDir(dataDir), e);
  const previous = (e: string) => join(previousDir(dataDir), e);
  mkdirSync(previousDir(dataDir), { recursive: true });
  // First everything old out: a new database must never meet the old one's WAL.
  for (const e of LIVE_ENTRIES) {
    const movedIn = staged.has(e) && !existsSync(staging(e));
    if (movedIn || !existsSync(live(e))) continue;
    if (existsSync(previous(e))) rmSync(live(e), { recursive: true, force: true });
    else move(live(e), previous(e));
  }
  for (const e of LIVE_ENTRIES) {
    if (staged.has(e) && existsSync(staging(e))) move(staging(e), live(e));
  }
  syncAll(dataDir);
}

/** Puts the old data back after the restored data failed to start. */
export function rollBack(dataDir: string, plan: RestorePlan): void {
  const staged = new Set(plan.staged);
  for (const e of LIVE_ENTRIES) {
    const live = join(dataDir, e);
    const previous = join(previousDir(dataDir), e);
    if (staged.has(e) || e.startsWith('pms.db') || existsSync(previous)) rmSync(live, { recursive: true, force: true });
    if (existsSync(previous)) move(previous, live);
  }
  syncAll(dataDir);
}

/**
 * At start-up, before the database opens: completes a decided swap and counts this start as a try
 * (the plan returned: the restored data is to be opened and, if that works, `confirmRestore`d); puts
 * the old data back after too many tries; removes what an unfinished restore or a finished one left.
 */
export function settleRestore(dataDir: string): RestorePlan | null {
  if (!existsSync(restoreRoot(dataDir))) return null;
  const plan = readPlan(dataDir);
  if (plan === null || plan.state === 'done') {
    rmSync(stagingDir(dataDir), { recursive: true, force: true });
    rmSync(previousDir(dataDir), { recursive: true, force: true });
    rmSync(planPath(dataDir), { force: true });
    return null;
  }
  if (plan.state === 'swap') rollForward(dataDir, plan);
  const next: RestorePlan = { ...plan, state: 'check', attempts: plan.attempts + 1 };
  if (next.attempts > MAX_ATTEMPTS) {
    abandonRestore(dataDir, next, `the restored data did not start in ${MAX_ATTEMPTS} tries`);
    return null;
  }
  writePlan(dataDir, next);
  return next;
}

/** The restored data started: `previous/` and the plan go. */
export function confirmRestore(dataDir: string, plan: RestorePlan): void {
  writePlan(dataDir, { ...plan, state: 'done' });
  rmSync(previousDir(dataDir), { recursive: true, force: true });
  rmSync(stagingDir(dataDir), { recursive: true, force: true });
  rmSync(planPath(dataDir), { force: true });
  syncDir(restoreRoot(dataDir));
}

/** The restored data failed to start: the old data back, the outcome left for its daemon to record. */
export function abandonRestore(dataDir: string, plan: RestorePlan, error: string): void {
  rollBack(dataDir, plan);
  const outcome: RestoreOutcome = {
    object: plan.object,
    error,
    startedAt: plan.startedAt,
    requestedBy: plan.requestedBy,
  };
  writeFileDurably(outcomePath(dataDir), JSON.stringify(outcome));
  rmSync(planPath(dataDir), { force: true });
  rmSync(stagingDir(dataDir), { recursive: true, force: true });
  syncDir(restoreRoot(dataDir));
}

/** The outcome of a restore that was put back, once (it is removed as it is read). */
export function takeOutcome(dataDir: string): RestoreOutcome | null {
  const path = outcomePath(dataDir);
  const outcome = readJson<RestoreOutcome>(path);
  rmSync(path, { force: true });
  return outcome;
}
