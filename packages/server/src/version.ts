// The package's version, read from its package.json (one place for it); a module of its own so
// `svc --version` and `--help` load nothing else.
import { createRequire } from 'node:module';

export const VERSION: string = (createRequire(import.meta.url)('../package.json') as { version: string }).version;
