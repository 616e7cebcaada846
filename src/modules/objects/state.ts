/**
 * What the object store keeps per daemon (`deps.objects`): the uploads running now (one per object,
 * §12 rule 5), the key that signs `_links.get`, where the upload thread's module is, and how free
 * space is measured (tests replace it).
 */
import { statfsSync } from 'node:fs';
import { WallSteps } from '../../clock';

/** Bytes a non-root process may still write on the file system holding `dir`. */
export function statfsFree(dir: string): number {
  const s = statfsSync(dir);
  return Number(s.bavail) * Number(s.bsize);
}

export class ObjectStoreState {
  /** Files of replaced or purged versions, by path, with when (monotonic ms) they were retired (files.ts `retireFile`). */
  readonly retired = new Map<string, number>();
  /** Objects whose content is being uploaded right now. */
  readonly uploading = new Set<number>();
  /** The HMAC key of signed download links, read from the data directory on first use. */
  linkKey: Uint8Array | null = null;
  /**
   * The upload thread's module (hashing.ts); main sets where the compiled executable carries
   * it; null writes and hashes uploads on the request thread.
   */
  hashWorkerUrl: string | null = new URL('./hash-worker.ts', import.meta.url).href;
  /** Free bytes where the media lives; tests set a figure of their own. */
  freeBytes: (dir: string) => number = statfsFree;
  /** Wall-clock steps, which move the trash times (service.ts `followWallClock`). */
  readonly wallSteps = new WallSteps();
}
