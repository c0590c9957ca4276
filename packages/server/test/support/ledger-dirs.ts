// Data folders holding a SQLite ledger, for the storage-damage suites: made, filled and removed after
// each test.
import { afterEach } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sha256, utf8 } from '@svc/core';
import { seedKeys } from './keys.js';
import { openLedgerAt } from './ledger-at.js';

/** Run after each test, last registered first. */
export const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** A data folder with keys and a ledger of `leaves` answers (`answer 0`, ...), one signed head per answer. */
export async function dataDir(leaves: number, prefix = 'svc-damage-'): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  seedKeys(dir);
  const ledger = await openLedgerAt({ SVC_DATA_DIR: dir });
  for (let i = 0; i < leaves; i++) await ledger.append([sha256(utf8(`answer ${i}`))]);
  await ledger.close();
  return dir;
}

/** The ledger file of a data folder. */
export const ledgerFileOf = (dir: string) => join(dir, 'ledger.sqlite');
