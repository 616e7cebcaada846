import { describe, expect, it } from 'bun:test';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { ConfigError, loadConfig } from './config';

describe('loadConfig', () => {
  it('has the documented defaults', () => {
    const c = loadConfig({});
    expect(c).toMatchObject({
      httpPort: 8080,
      rpcPort: 8099,
      dataDir: resolve('./data'),
      logLevel: 'info',
      initialAdminPassword: null,
      trustedNetworks: null,
      hostExecutor: 'dry-run',
      durability: 'power-cut',
      backupWriteMBps: 80,
      maxBodyBytes: 1024 * 1024,
    });
  });

  it('reads every variable', () => {
    const c = loadConfig({
      PMS_HTTP_PORT: '80',
      PMS_RPC_PORT: '9000',
      PMS_DATA_DIR: '/var/lib/pmsd',
      PMS_LOG_LEVEL: 'debug',
      PMS_INITIAL_ADMIN_PASSWORD: 'long-enough',
      PMS_TRUSTED_NETWORKS: '10.0.0.0/8, fd00::/8',
      PMS_HOST_EXECUTOR: 'systemd',
      PMS_BACKUP_WRITE_MBPS: '0',
    });
    expect(c).toMatchObject({
      httpPort: 80,
      rpcPort: 9000,
      dataDir: '/var/lib/pmsd',
      logLevel: 'debug',
      initialAdminPassword: 'long-enough',
      trustedNetworks: ['10.0.0.0/8', 'fd00::/8'],
      hostExecutor: 'systemd',
      backupWriteMBps: 0,
    });
  });

  it('reads an empty PMS_TRUSTED_NETWORKS as none, and falls back to systemd STATE_DIRECTORY', () => {
    expect(loadConfig({ PMS_TRUSTED_NETWORKS: '' }).trustedNetworks).toEqual([]);
    expect(loadConfig({ STATE_DIRECTORY: '/var/lib/pmsd' }).dataDir).toBe('/var/lib/pmsd');
  });

  it('reads the flood budgets: none set leaves every one to the settings, 0 turns one off', () => {
    expect(loadConfig({}).rateLimits).toEqual({});
    const c = loadConfig({
      PMS_RATE_LIMIT_REQUESTS: '0',
      PMS_RATE_LIMIT_REQUEST_BURST: '10',
      PMS_RATE_LIMIT_INGEST: '1000000',
      PMS_RATE_LIMIT_INGEST_BURST: '2000000',
      PMS_RATE_LIMIT_HEARTBEATS: '5',
      PMS_RATE_LIMIT_HEARTBEAT_BURST: '8',
      PMS_RATE_LIMIT_LOGIN_FAILURES: '0',
    });
    expect(c.rateLimits).toEqual({
      requestsPerSecond: 0,
      requestBurst: 10,
      ingestPerSecond: 1_000_000,
      ingestBurst: 2_000_000,
      heartbeatsPerSecond: 5,
      heartbeatBurst: 8,
      loginFailuresPerAddress: 0,
    });
    expect(loadConfig({ PMS_RATE_LIMIT_INGEST: '' }).rateLimits).toEqual({});
  });

  it('reads a KEY=value file that the environment overrides', () => {
    const file = join(mkdtempSync(join(tmpdir(), 'pms-conf-')), 'pmsd.env');
    writeFileSync(file, '# comment\nPMS_HTTP_PORT=9090\nPMS_LOG_LEVEL="warn"\n\n');
    const c = loadConfig({ PMS_CONFIG_FILE: file, PMS_LOG_LEVEL: 'error' });
    expect(c.httpPort).toBe(9090);
    expect(c.logLevel).toBe('error');
  });

  it.each([
    ['PMS_HTTP_PORT', { PMS_HTTP_PORT: 'abc' }, 'PMS_HTTP_PORT must be a port number 1-65535'],
    ['PMS_RPC_PORT', { PMS_RPC_PORT: '70000' }, 'PMS_RPC_PORT must be a port number 1-65535'],
    [
      'PMS_LOG_LEVEL',
      { PMS_LOG_LEVEL: 'loud' },
      'PMS_LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent',
    ],
    ['PMS_HOST_EXECUTOR', { PMS_HOST_EXECUTOR: 'ssh' }, 'PMS_HOST_EXECUTOR must be dry-run or systemd'],
    ['PMS_DURABILITY', { PMS_DURABILITY: 'fast' }, 'PMS_DURABILITY must be power-cut or crash'],
    [
      'PMS_BACKUP_WRITE_MBPS',
      { PMS_BACKUP_WRITE_MBPS: '1.5' },
      'PMS_BACKUP_WRITE_MBPS must be an integer from 0 (unpaced) to 100000',
    ],
    [
      'PMS_BACKUP_WRITE_MBPS',
      { PMS_BACKUP_WRITE_MBPS: '-1' },
      'PMS_BACKUP_WRITE_MBPS must be an integer from 0 (unpaced) to 100000',
    ],
    [
      'PMS_TRUSTED_NETWORKS',
      { PMS_TRUSTED_NETWORKS: '10.0.0.0/33' },
      'PMS_TRUSTED_NETWORKS: "10.0.0.0/33" is not a CIDR network',
    ],
    [
      'PMS_INITIAL_ADMIN_PASSWORD',
      { PMS_INITIAL_ADMIN_PASSWORD: 'short' },
      'PMS_INITIAL_ADMIN_PASSWORD must be 8-256 characters',
    ],
    [
      'PMS_RATE_LIMIT_REQUESTS',
      { PMS_RATE_LIMIT_REQUESTS: '-1' },
      'PMS_RATE_LIMIT_REQUESTS must be an integer from 0 to 1000000000 (0 = off)',
    ],
    [
      'PMS_RATE_LIMIT_INGEST',
      { PMS_RATE_LIMIT_INGEST: '1e4' },
      'PMS_RATE_LIMIT_INGEST must be an integer from 0 to 1000000000 (0 = off)',
    ],
    [
      'PMS_RATE_LIMIT_HEARTBEAT_BURST',
      { PMS_RATE_LIMIT_HEARTBEAT_BURST: '0' },
      'PMS_RATE_LIMIT_HEARTBEAT_BURST must be an integer from 1 to 1000000000',
    ],
    [
      'PMS_CONFIG_FILE',
      { PMS_CONFIG_FILE: '/nonexistent/pmsd.env' },
      'PMS_CONFIG_FILE: cannot read /nonexistent/pmsd.env',
    ],
  ])('refuses a bad %s with one clear line', (_, env, message) => {
    expect(() => loadConfig(env)).toThrow(new ConfigError(message));
  });
});
