import { describe, expect, it } from 'bun:test';
import { addressAllowed, literalAddress } from './net';

describe('webhook target addresses (§10 rule 6)', () => {
  it('always refuses link-local, multicast, unspecified and broadcast, also with allowPrivateNetwork', () => {
    for (const a of [
      '169.254.0.1',
      '169.254.169.254',
      'fe80::1',
      'febf::1',
      '224.0.0.251',
      '239.255.255.250',
      'ff02::1',
      '0.0.0.0',
      '::',
      '255.255.255.255',
      '::ffff:169.254.169.254',
    ]) {
      expect([a, addressAllowed(a, true)]).toEqual([a, false]);
    }
  });

  it('allows loopback and private ranges only with allowPrivateNetwork', () => {
    for (const a of [
      '127.0.0.1',
      '127.8.9.10',
      '::1',
      '10.0.0.1',
      '172.16.0.1',
      '172.31.255.254',
      '192.168.1.1',
      '100.64.0.1',
      '100.127.255.254',
      'fc00::1',
      'fdff::1',
      '::ffff:127.0.0.1',
    ]) {
      expect([a, addressAllowed(a, false), addressAllowed(a, true)]).toEqual([a, false, true]);
    }
  });

  it('allows public addresses just outside those ranges', () => {
    for (const a of [
      '172.15.255.255',
      '172.32.0.1',
      '100.63.255.255',
      '100.128.0.1',
      '203.0.113.10',
      '2001:db8::1',
      'fe00::1',
      '169.253.255.255',
    ]) {
      expect([a, addressAllowed(a, false)]).toEqual([a, true]);
    }
  });

  it('reads a literal address from a URL, IPv6 without brackets; a name is none', () => {
    expect(literalAddress(new URL('http://[::1]:8080/x'))).toBe('::1');
    expect(literalAddress(new URL('http://10.1.2.3/x'))).toBe('10.1.2.3');
    expect(literalAddress(new URL('https://hooks.example.com/'))).toBeNull();
  });
});
