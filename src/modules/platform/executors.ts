/**
 * Who carries a host action out (§20 rule 3), chosen by `PMS_HOST_EXECUTOR`, never by the API.
 *
 * `systemd` asks logind over D-Bus (busctl, a fixed argv and a fixed environment, never a shell and
 * nothing from the request): `CanPowerOff`/`CanReboot` answer whether the pmsd user may (polkit: the
 * rule shipped as systemd/pmsd-power.rules), asked before anything stops, so a refusal costs nothing;
 * `PowerOff`/`Reboot` with `interactive=false` act, once the database is closed. logind
 * refuses while another user's session or an inhibitor lock (a package upgrade, a recording) blocks it,
 * unless polkit allows the override, which pmsd's rule deliberately does not: that refusal is rule 4's
 * "the executor fails".
 */
import type { HostAction, HostExecutor } from './state';

export interface CommandResult {
  /** null when the command was killed (its time ran out). */
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs one command with a fixed argv; tests replace it. */
export type RunCommand = (argv: readonly string[], timeoutMs: number) => Promise<CommandResult>;

/** The only environment the host's tools see: nothing of pmsd's own (NOTIFY_SOCKET, passwords). */
const COMMAND_ENV = { PATH: '/usr/sbin:/usr/bin:/sbin:/bin', LANG: 'C.UTF-8' };

export const runCommand: RunCommand = async (argv, timeoutMs) => {
  const [name, ...args] = argv;
  const path = name === undefined ? null : Bun.which(name, { PATH: COMMAND_ENV.PATH });
  if (path === null) throw new Error(`${name ?? 'the command'} is not installed on this host`);
  const proc = Bun.spawn([path, ...args], {
    env: COMMAND_ENV,
    stdin: 'ignore',
    stdout: 'pipe',
    stderr: 'pipe',
    timeout: timeoutMs,
  });
  const [stdout, stderr, code] = await Promise.all([
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
    proc.exited,
  ]);
  return { code: proc.signalCode ? null : code, stdout, stderr };
};

export const dryRunExecutor: HostExecutor = {
  name: 'dry-run',
  dryRun: true,
  check: async () => {},
  run: async () => {},
};

const LOGIND = ['org.freedesktop.login1', '/org/freedesktop/login1', 'org.freedesktop.login1.Manager'] as const;
const METHODS: Record<HostAction, { can: string; act: string }> = {
  'system/shutdown': { can: 'CanPowerOff', act: 'PowerOff' },
  'system/reboot': { can: 'CanReboot', act: 'Reboot' },
};
const ASK_TIMEOUT_S = 5;
const ACT_TIMEOUT_S = 25;

/** The busctl argv asking logind `method` (with D-Bus arguments `args`): fixed words only. */
export function logindCall(method: string, timeoutS: number, args: readonly string[] = []): string[] {
  return ['busctl', '--system', `--timeout=${timeoutS}`, 'call', ...LOGIND, method, ...args];
}

function failure(what: string, result: CommandResult): Error {
  const reason = result.stderr.trim() || (result.code === null ? 'no answer in time' : `exit code ${result.code}`);
  return new Error(`${what}: ${reason}`);
}

export function systemdExecutor(run: RunCommand = runCommand): HostExecutor {
  return {
    name: 'systemd',
    dryRun: false,
    async check(action) {
      const { can } = METHODS[action];
      const asked = await run(logindCall(can, ASK_TIMEOUT_S), (ASK_TIMEOUT_S + 1) * 1000);
      if (asked.code !== 0) throw failure(`logind could not be asked (${can})`, asked);
      // `s "yes"`; "challenge" (a password would be needed), "no" and "na" all mean it would fail.
      const answer = asked.stdout.trim().replace(/^s "(.*)"$/, '$1');
      if (answer !== 'yes')
        throw new Error(
          `logind answers ${can} with "${answer}": the pmsd user may not do this now (polkit rule missing, another session or an inhibitor lock)`,
        );
    },
    async run(action) {
      const { act } = METHODS[action];
      const done = await run(logindCall(act, ACT_TIMEOUT_S, ['b', 'false']), (ACT_TIMEOUT_S + 1) * 1000);
      if (done.code !== 0) throw failure(`logind refused ${act}`, done);
    },
  };
}

/** The executor the configuration names. */
export function hostExecutor(name: 'dry-run' | 'systemd'): HostExecutor {
  return name === 'systemd' ? systemdExecutor() : dryRunExecutor;
}
