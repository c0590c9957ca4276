// The keyring of a data folder, made where missing: what every command that signs needs, and
// nothing else (so `svc issue` loads no server, HTTP, pool or metrics module for it).
import { join } from 'node:path';
import type { Config } from '../config.js';
import type { Logger } from '../log.js';
import { Keyring } from './keyring.js';

/**
 * Load the keyring, making dev keys for whatever is missing (and saying so in the log).
 *
 * @example
 * ```ts
 * const keys = ensureKeys(cfg, jsonLogger('info')); // loads, or generates on first start
 * ```
 */
export function ensureKeys(cfg: Config, log: Logger): Keyring {
  const dir = join(cfg.dataDir, 'keys');
  const written = Keyring.generate(dir);
  if (written.length > 0)
    log('dev_keys_generated', { dir, roles: written, note: 'new development keys were made; run `svc keygen` to manage keys' });
  return Keyring.load(dir).ring;
}
