import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { toHex, type Names } from '@svc/core';
import type { Config } from '../config.js';
import type { Keyring } from '../keys/keyring.js';
import type { Logger } from '../log.js';
import { Ledger } from './ledger.js';
import { SqliteStore } from './store.js';

export function ledgerFile(cfg: Config): string {
  return join(cfg.dataDir, 'ledger.sqlite');
}

export function logName(names: Names): string {
  return `${names.service}-ledger`;
}

/** Open the SQLite ledger in the data folder, sign the empty head if new, start the full check. */
export function openLedger(cfg: Config, names: Names, ring: Keyring, log: Logger, opts: { background?: boolean } = {}): Ledger {
  mkdirSync(cfg.dataDir, { recursive: true });
  const store = new SqliteStore(ledgerFile(cfg));
  const ledger = new Ledger({
    store,
    names,
    log: logName(names),
    sthKey: ring.get('sth'),
    isPublished: (hex) => ring.publicKeys('sth').some((pk) => toHex(pk) === hex),
  });
  ledger.init();
  if (opts.background !== false) {
    void ledger.audit.fullCheckInBackground().then(() => log('ledger_full_check_done', { withheld: ledger.audit.withheld() }));
  }
  return ledger;
}
