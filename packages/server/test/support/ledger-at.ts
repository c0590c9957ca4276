// The ledger of a data folder (its SQLite file, or the PostgreSQL database SVC_DATABASE_URL names),
// opened quietly, with no background work and no batching: how tests look at what a run left in
// the log, or put leaves there themselves.
import { namesFor } from '@svc/core';
import { ensureKeys, loadConfig, openLedger } from '../../src/internal.js';
import { seedKeys } from './keys.js';

const quiet = () => {};

/** Open the ledger `env` describes (SVC_DATA_DIR, SVC_DATABASE_URL); the caller closes it. */
export function openLedgerAt(env: NodeJS.ProcessEnv): ReturnType<typeof openLedger> {
  if (env.SVC_DATA_DIR) seedKeys(env.SVC_DATA_DIR);
  const cfg = loadConfig({ SVC_LOG: '0', ...env });
  return openLedger(cfg, namesFor('svc'), ensureKeys(cfg, quiet), quiet, { background: false, batchMs: 0 });
}
