import { describe, expect, it } from 'bun:test';
import { cidrContains, parseCidr } from './net';

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
