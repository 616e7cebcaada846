/**
 * How eagerly JavaScriptCore optimizes the daemon's code (the hot-paths issue: idle RSS of the
 * compiled executable under 80 MB). main.ts imports this module first, so it applies from the
 * first module the daemon evaluates.
 *
 * With the normal policy, JavaScriptCore's optimizing compiler (DFG) compiled about 230 functions
 * in the first 15 s of an idle daemon (`BUN_JSC_reportDFGCompileTimes=1`): the start (route and
 * schema set-up, drizzle building its statements, migrations) and the once-a-second jobs (croner
 * finding the next run). None of it is hot. Each compilation costs the compiler's working memory,
 * the pages of the executable that hold the compiler, and the code it makes, kept until the next
 * quiet trim (quiet-trim.ts).
 *
 * `Bun.unsafe.setJITPolicy(JIT_POLICY)` makes every tier-up wait for JIT_POLICY times as many
 * executions. Code that runs a few times a second stays in the interpreter for good (2 DFG
 * compilations in the same 15 s); a request path under load runs thousands of times a second and
 * reaches the optimizing tiers all the same, only later: a small function's first DFG compilation
 * came after 11 000 calls instead of 1 000–1 500 (tests/helpers/jit-probe.ts). A path
 * called a few times a second (an operator's reads) stays in the interpreter longer; the schedule's
 * first read after an edit, the heaviest of them, went from 9.2 to 10.7 ms (median; bar 25 ms). The policy is never set back
 * to 1: the daemon's own jobs go on for its whole life, and the quiet trim drops compiled code that
 * would otherwise be compiled again.
 * Threads (Workers) have their own engine and keep the normal policy.
 *
 * Measured (bench/RESULTS.md, "Hot paths, session 6"): idle RSS of the executable 80–81 → 76.5–77.3 MB
 * fresh; the hot paths and the power-up storm unchanged within the runs' spread, the schedule's
 * first read after an edit as above (`bun bench/hot-paths.ts`, `bun bench/power-up.ts`,
 * `bun bench/schedule.ts`).
 *
 * **The policy follows the load** (`jitForLoad`, called by main.ts through the quiet trim,
 * quiet-trim.ts): the normal policy while the daemon is busy, this one from the start and again at
 * every trim, when the daemon has been quiet for 30 s and its compiled code is dropped anyway. Code
 * that runs a few thousand times in a burst never reached the compiler under this policy: a venue's
 * recovery after a power cut (5 000 subsystems coming back at 1 000 a second, each closing its
 * incident and its notification once) ran wholly in the interpreter, and its heartbeats waited
 * 9–81 ms (median) behind one another, against 3.7–8 ms with the normal policy while busy (p99
 * 34–299 against 55–150 ms: the recovery's own cost still keeps it over its 50 ms bar;
 * bench/RESULTS.md, "Hot paths, session 13"). A quiet daemon keeps the policy, and with it what it
 * was for: its own jobs stay in the interpreter.
 */

/** Tier-up thresholds are this many times the engine's normal ones, while the daemon is quiet. */
export const JIT_POLICY = 100;
/** The engine's normal policy, while the daemon is busy. */
export const BUSY_JIT_POLICY = 1;

Bun.unsafe.setJITPolicy(JIT_POLICY);

/** The normal policy while the daemon is busy, `JIT_POLICY` while it is quiet (quiet-trim.ts). */
export function jitForLoad(busy: boolean): void {
  Bun.unsafe.setJITPolicy(busy ? BUSY_JIT_POLICY : JIT_POLICY);
}
