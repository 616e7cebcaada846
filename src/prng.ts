/**
 * mulberry32: a small, fast, deterministic random source in [0, 1) for a 32-bit seed. Good enough to
 * shuffle a playlist the same way every time it is resolved, or to choose test cases by seed; never
 * for anything secret (crypto.ts is for that).
 */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
