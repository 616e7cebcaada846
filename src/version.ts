import pkg from '../package.json';
import type { VersionInfo } from './deps';

/** Replaced at build time by build/compile.ts (`--define`); `dev` when run from source. */
declare const PMS_BUILD_COMMIT: string | undefined;

export const versionInfo: VersionInfo = {
  version: pkg.version,
  apiVersion: '2.5',
  commit: typeof PMS_BUILD_COMMIT === 'string' ? PMS_BUILD_COMMIT : 'dev',
};
