import { describe, expect, it } from 'bun:test';
import dns from 'node:dns';
import { closeSync, fdatasync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cidrContains, parseCidr, resolveAll } from './net';

function inside(cidr: string, address: string): boolean {
  const parsed = parseCidr(cidr);
  if (!parsed) throw new Error(`bad cidr ${cidr}`);
  return cidrContains(parsed, address);
}

describe('CIDR matching', () => {
  it('matches IPv4 networks and their v4-mapped IPv6 form', () => {
    expect(inside('127.0.0.0/8', '127.1.2.3')).toBe(true);
    expect(inside('127.0.0.0/8', '::ffff:127.0.0.1')).toBe(true);
    expect(inside('127.0.0.0/8', '128.0.0.1')).toBe(false);
    expect(inside('192.168.10.0/23', '192.168.11.200')).toBe(true);
    expect(inside('192.168.10.0/23', '192.168.12.1')).toBe(false);
    expect(inside('10.0.0.5', '10.0.0.5')).toBe(true);
    expect(inside('10.0.0.5', '10.0.0.6')).toBe(false);
    expect(inside('0.0.0.0/0', '8.8.8.8')).toBe(true);
  });
  it('matches IPv6 networks', () => {
    expect(inside('::1/128', '::1')).toBe(true);
    expect(inside('::1/128', '::2')).toBe(false);
    expect(inside('fd00::/8', 'fd12:3456::1')).toBe(true);
    expect(inside('fe80::/10', 'fe80::1%eth0')).toBe(true);
    expect(inside('fe80::/10', 'fec0::1')).toBe(false);
  });
  it('rejects malformed networks and addresses', () => {
    for (const bad of ['', '1.2.3', '1.2.3.4/33', '300.1.1.1/8', '::1/129', 'abc/8', '1.2.3.4/8/1', '1.2.3.4/x']) {
      expect(parseCidr(bad)).toBeNull();
    }
    expect(inside('127.0.0.0/8', 'not-an-address')).toBe(false);
  });
});

describe('resolveAll', () => {
  it('resolves from /etc/hosts', async () => {
    const addresses = await resolveAll('localhost');
    expect(addresses.some((a) => a === '127.0.0.1' || a === '::1')).toBe(true);
  });

  it('leaves the thread pool free while the DNS server does not answer (the WAL sync runs there)', async () => {
    let queries = 0;
    const silent = await Bun.udpSocket({
      hostname: '127.0.0.1',
      socket: {
        data: () => {
          queries += 1;
        },
      },
    });
    const servers = dns.getServers();
    dns.setServers([`127.0.0.1:${silent.port}`]);
    const dir = mkdtempSync(join(tmpdir(), 'pms-test-net-'));
    try {
      // More look-ups than the pool has threads, all left waiting for an answer that never comes.
      const lookups = Array.from({ length: 2 * navigator.hardwareConcurrency }, (_, i) =>
        resolveAll(`silent-${i}.venue.example`).catch(() => []),
      );
      for (let i = 0; i < 200 && queries < lookups.length; i++) await Bun.sleep(5);
      expect(queries).toBeGreaterThanOrEqual(lookups.length);
      const fd = openSync(join(dir, 'wal'), 'w');
      writeSync(fd, 'x');
      const synced = await new Promise<boolean>((resolve) => {
        const timer = setTimeout(() => resolve(false), 2000);
        fdatasync(fd, () => {
          clearTimeout(timer);
          resolve(true);
        });
      });
      closeSync(fd);
      expect(synced).toBe(true);
      expect(
        await Promise.race([Promise.all(lookups).then(() => 'answered'), Bun.sleep(10).then(() => 'waiting')]),
      ).toBe('waiting');
    } finally {
      dns.setServers(servers);
      silent.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('refuses a name nothing knows', async () => {
    await expect(resolveAll('no-such-host.invalid')).rejects.toThrow();
  });
});
