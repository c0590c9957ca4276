// Opening the SQLite ledger of a data folder, for the server (which must keep serving whatever the
// file's state) and for tools that append (which must refuse to sign over a damaged log).
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { toHex, type Names } from '@svc/core';
import { HttpError } from '../http/errors.js';
import type { Config } from '../config.js';
import type { Keyring } from '../keys/keyring.js';
import type { Logger } from '../log.js';
import type { LedgerApi } from './api.js';
import { Ledger } from './ledger.js';
import { SqliteStore } from './store.js';
import { FileWitness, witnessFile } from './witness.js';
import { nativeCrypto } from '../crypto/node.js';

export function ledgerFile(cfg: Config): string {
  return join(cfg.dataDir, 'ledger.sqlite');
}

export function logName(names: Names): string {
  return `${names.service}-ledger`;
}

/**
 * Open the SQLite ledger in the data folder and sign the empty head if new. With `background`
 * (the default) the full check starts on the event loop; appends run it first in any case.
 */
export function openLedger(cfg: Config, names: Names, ring: Keyring, log: Logger, opts: { background?: boolean } = {}): Ledger {
  mkdirSync(cfg.dataDir, { recursive: true });
  const store = new SqliteStore(ledgerFile(cfg));
  try {
    const ledger = new Ledger({
      store,
      names,
      log: logName(names),
      sthKey: ring.get('sth'),
      isPublished: (hex) => ring.publicKeys('sth').some((pk) => toHex(pk) === hex),
      witness: new FileWitness(witnessFile(cfg.dataDir)),
      ...(nativeCrypto() ? { crypto: nativeCrypto()! } : {}),
    });
    ledger.init();
    if (opts.background !== false) {
      void ledger.audit.fullCheckInBackground().then(() => log('ledger_full_check_done', { withheld: ledger.audit.withheld() }));
    }
    return ledger;
  } catch (e) {
    store.close();
    throw e;
  }
}

// How often a ledger that could not be opened is tried again, on the next request after it.
const RETRY_MS = 5_000;

/**
 * The server's ledger: the opened ledger, or, while the file cannot be opened (truncated,
 * unreadable, read-only, corrupt), a stand-in that answers 503 and tries again now and then.
 */
export function serveLedger(cfg: Config, names: Names, ring: Keyring, log: Logger, now: () => number = Date.now): LedgerApi {
  let ledger: Ledger | null = null;
  let lastTry = -Infinity;
  const get = (): Ledger => {
    if (ledger) return ledger;
    if (now() - lastTry >= RETRY_MS) {
      lastTry = now();
      try {
        ledger = openLedger(cfg, names, ring, log);
        log('ledger_opened', { file: ledgerFile(cfg) });
        return ledger;
      } catch (e) {
        log('ledger_unavailable', { file: ledgerFile(cfg), error: e instanceof Error ? e.message : String(e) });
      }
    }
    throw new HttpError('unavailable', 'ledger temporarily unavailable');
  };
  try {
    get();
  } catch {
    // Logged above; verification and the other endpoints start anyway.
  }
  return {
    head: () => get().head(),
    inclusion: (r) => get().inclusion(r),
    consistency: (a, b, s) => get().consistency(a, b, s),
    history: (v) => get().history(v),
    close: () => ledger?.close(),
  };
}
