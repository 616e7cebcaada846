/** Password hashing (argon2id through Bun.password) and the password rule of §1.2. */
import type { Deps } from '../../deps';
import { longerThan, shorterThan } from '../../http/characters';
import { invalid } from '../../http/errors';

export function hashPassword(deps: Deps, password: string): Promise<string> {
  return Bun.password.hash(password, { algorithm: 'argon2id', ...deps.config.passwordHash });
}

export function verifyPassword(password: string, hash: string): Promise<boolean> {
  return Bun.password.verify(password, hash).catch(() => false);
}

/** 8-256 characters, not the username; the message names the rule, never the value. */
export function checkPasswordRule(password: string, username: string, path = '/password'): void {
  if (shorterThan(password, 8)) throw invalid(path, 'must be at least 8 characters');
  if (longerThan(password, 256)) throw invalid(path, 'must be at most 256 characters');
  if (password.toLowerCase() === username.toLowerCase()) throw invalid(path, 'must not equal the username');
}

/** A hash of a random secret: login with an unknown username spends the same time as with a known one. */
let decoy: Promise<string> | null = null;
export function decoyHash(deps: Deps): Promise<string> {
  decoy ??= hashPassword(deps, crypto.randomUUID());
  return decoy;
}
