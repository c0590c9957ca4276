// A data folder's keys as a copy of the run's keyring (support/global-keys.ts), in place before a
// server or an issuer opens the folder: the keys are what `ensureKeys` would have made, without a
// second of key generation per folder. Each copy is the folder's own (rotation changes only it).
import { chmodSync, cpSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { inject } from 'vitest';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The keys folder of the run's keyring (support/global-keys.ts). */
    keyTemplate: string;
  }
}

export function seedKeys(dataDir: string): void {
  const keys = join(dataDir, 'keys');
  if (existsSync(keys)) return;
  cpSync(inject('keyTemplate'), keys, { recursive: true });
  chmodSync(keys, 0o700);
}
