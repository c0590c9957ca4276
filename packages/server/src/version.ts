// The package's version, read from its package.json (one place for it); a module of its own so
// `svc --version` and `--help` load nothing else.
import { createRequire } from 'node:module';

/**
 * The server's version, as /healthz and `svc --version` say it.
 *
 * @example
 * ```ts
 * console.log(`svc ${VERSION}`);
 * ```
 */
export const VERSION: string = (createRequire(import.meta.url)('../package.json') as { version: string }).version;
