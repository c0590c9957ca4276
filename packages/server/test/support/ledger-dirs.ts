// Data folders holding a SQLite ledger, for the storage-damage suites: made, filled and removed after
// each test.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sha256, utf8 } from '@svc/core/primitives';
import { seedKeys } from './keys.js';
import { afterThisTest } from './lifecycle.js';
import { openLedgerAt } from './ledger-at.js';

/** A data folder with keys and a ledger of `leaves` answers (`answer 0`, ...), one signed head per answer. */
export async function dataDir(leaves: number, prefix = 'svc-damage-'): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  afterThisTest(() => rmSync(dir, { recursive: true, force: true }));
  seedKeys(dir);
  const ledger = await openLedgerAt({ SVC_DATA_DIR: dir });
  for (let i = 0; i < leaves; i++) await ledger.append([sha256(utf8(`answer ${i}`))]);
  await ledger.close();
  return dir;
}

/** The ledger file of a data folder. */
export const ledgerFileOf = (dir: string) => join(dir, 'ledger.sqlite');
