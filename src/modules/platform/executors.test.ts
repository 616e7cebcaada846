import { describe, expect, it } from 'bun:test';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { type CommandResult, dryRunExecutor, hostExecutor, runCommand, systemdExecutor } from './executors';

/** Records every argv; answers from the table by the logind method named, as busctl would. */
function fakeBusctl(answers: Record<string, CommandResult>) {
  const argvs: string[][] = [];
  const run = async (argv: readonly string[]) => {
    argvs.push([...argv]);
    const method = argv[7] ?? '';
    const answer = answers[method];
    if (!answer) throw new Error(`unexpected ${method}`);
    return answer;
  };
  return { argvs, run };
}

const ok = (stdout = ''): CommandResult => ({ code: 0, stdout, stderr: '' });
const LOGIND = ['org.freedesktop.login1', '/org/freedesktop/login1', 'org.freedesktop.login1.Manager'];

describe('the systemd executor (logind over D-Bus)', () => {
  it('asks CanPowerOff / CanReboot and acts with PowerOff / Reboot, interactive=false, with fixed argv', async () => {
    const busctl = fakeBusctl({
      CanPowerOff: ok('s "yes"\n'),
      CanReboot: ok('s "yes"\n'),
      PowerOff: ok(),
      Reboot: ok(),
    });
    const executor = systemdExecutor(busctl.run);
    expect(executor).toMatchObject({ name: 'systemd', dryRun: false });
    await executor.check('system/shutdown');
    await executor.run('system/shutdown');
    await executor.check('system/reboot');
    await executor.run('system/reboot');
    expect(busctl.argvs).toEqual([
      ['busctl', '--system', '--timeout=5', 'call', ...LOGIND, 'CanPowerOff'],
      ['busctl', '--system', '--timeout=25', 'call', ...LOGIND, 'PowerOff', 'b', 'false'],
      ['busctl', '--system', '--timeout=5', 'call', ...LOGIND, 'CanReboot'],
      ['busctl', '--system', '--timeout=25', 'call', ...LOGIND, 'Reboot', 'b', 'false'],
    ]);
  });

  it('refuses, with the reason, what logind says the pmsd user may not do or cannot be asked', async () => {
    const answers = [
      { CanPowerOff: ok('s "challenge"\n') },
      { CanPowerOff: ok('s "na"\n') },
      { CanPowerOff: { code: 1, stdout: '', stderr: 'Failed to connect to bus: No such file or directory\n' } },
      { CanPowerOff: { code: null, stdout: '', stderr: '' } },
    ];
    const reasons: string[] = [];
    for (const answer of answers) {
      await systemdExecutor(fakeBusctl(answer).run)
        .check('system/shutdown')
        .then(
          () => reasons.push('accepted'),
          (err: Error) => reasons.push(err.message),
        );
    }
    expect(reasons).toEqual([
      'logind answers CanPowerOff with "challenge": the pmsd user may not do this now (polkit rule missing, another session or an inhibitor lock)',
      'logind answers CanPowerOff with "na": the pmsd user may not do this now (polkit rule missing, another session or an inhibitor lock)',
      'logind could not be asked (CanPowerOff): Failed to connect to bus: No such file or directory',
      'logind could not be asked (CanPowerOff): no answer in time',
    ]);
    const refused = systemdExecutor(
      fakeBusctl({ Reboot: { code: 1, stdout: '', stderr: 'Call failed: Access denied\n' } }).run,
    );
    await expect(refused.run('system/reboot')).rejects.toThrow('logind refused Reboot: Call failed: Access denied');
  });

  it('is chosen by the configuration; dry-run does nothing', async () => {
    expect(hostExecutor('dry-run')).toBe(dryRunExecutor);
    expect(hostExecutor('systemd').name).toBe('systemd');
    expect(dryRunExecutor.dryRun).toBe(true);
    await dryRunExecutor.check('system/shutdown');
  });
});

describe('runCommand', () => {
  it('runs an argv without a shell and with a fixed environment', async () => {
    const before = process.env.NOTIFY_SOCKET;
    process.env.NOTIFY_SOCKET = '/run/systemd/notify';
    try {
      // biome-ignore lint/suspicious/noTemplateCurlyInString: a shell parameter expansion, read by sh
      const script = 'printf "%s|%s" "$0" "${NOTIFY_SOCKET-unset}"';
      const result = await runCommand(['sh', '-c', script, '$(id); rm -rf /x'], 5000);
      expect(result).toEqual({ code: 0, stdout: '$(id); rm -rf /x|unset', stderr: '' });
    } finally {
      if (before === undefined) delete process.env.NOTIFY_SOCKET;
      else process.env.NOTIFY_SOCKET = before;
    }
  });

  it('says when a tool is missing, and reports a command killed at its time limit', async () => {
    await expect(runCommand(['pmsd-no-such-tool'], 1000)).rejects.toThrow(
      'pmsd-no-such-tool is not installed on this host',
    );
    expect((await runCommand(['sleep', '5'], 100)).code).toBeNull();
  });
});

describe('the polkit rule shipped for it (systemd/pmsd-power.rules)', () => {
  it('lets the user pmsd, and nobody else, power off and reboot; never past an inhibitor lock', () => {
    const rules: Array<(action: { id: string }, subject: { user: string }) => string> = [];
    const polkit = {
      Result: { YES: 'yes', NOT_HANDLED: 'not handled' },
      addRule: (rule: (typeof rules)[number]) => rules.push(rule),
    };
    const source = readFileSync(resolve(import.meta.dir, '../../../systemd/pmsd-power.rules'), 'utf8');
    new Function('polkit', source)(polkit);
    expect(rules).toHaveLength(1);
    const decide = (user: string, id: string) => rules[0]?.({ id: `org.freedesktop.login1.${id}` }, { user });
    for (const id of ['power-off', 'power-off-multiple-sessions', 'reboot', 'reboot-multiple-sessions']) {
      expect(decide('pmsd', id)).toBe('yes');
      expect(decide('ops', id)).toBe('not handled');
    }
    for (const id of ['power-off-ignore-inhibit', 'reboot-ignore-inhibit', 'suspend', 'halt'])
      expect(decide('pmsd', id)).toBe('not handled');
  });
});
