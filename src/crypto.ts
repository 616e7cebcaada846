/** Secrets and digests. Secrets are 32 random bytes in base64url; only their SHA-256 is ever stored. */
export function sha256Hex(text: string): string {
  return new Bun.CryptoHasher('sha256').update(text).digest('hex');
}

export function randomSecret(bytes = 32): string {
  return Buffer.from(crypto.getRandomValues(new Uint8Array(bytes))).toString('base64url');
}

export function randomId(): string {
  return crypto.randomUUID();
}
