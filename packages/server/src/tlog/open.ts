// Opening the ledger with its checkpoints (the composition of ledger/ and tlog/, so it lives above
// both): the SQLite file of a data folder (embedded default) or a PostgreSQL database
// shared by several instances. The server must keep serving whatever the store's state; tools that
// append must refuse to sign over a damaged log.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Names } from '@svc/core';
import { toHex } from '@svc/core/primitives';
import { ledgerUnavailable, messageWithCauses } from '../ledger/errors.js';
import type { Config } from '../config.js';
import type { Keyring } from '../keys/keyring.js';
import type { Logger } from '../log.js';
import type { LedgerApi } from '../ledger/api.js';
import { Ledger } from '../ledger/ledger.js';
import { redactUrl } from '../ledger/postgres/url.js';
import { ProcessStore } from '../ledger/sqlite/process.js';
import { SqliteStore } from '../ledger/sqlite/store.js';
import type { LedgerStore } from '../ledger/store.js';
import { FileFindingsRecord, findingsFile } from '../ledger/findings-record.js';
import { FileHighWater, highWaterFile, legacyHighWaterFile } from '../ledger/high-water.js';
import { nativeCrypto } from '../crypto/node.js';
import { checkpointer, logOrigin, logRoles } from './checkpoints.js';

export function ledgerFile(cfg: Config): string {
  return join(cfg.dataDir, 'ledger.sqlite');
}

export function ledgerLocation(cfg: Config): string {
  return cfg.databaseUrl ? redactUrl(cfg.databaseUrl) : ledgerFile(cfg);
}

export function logName(names: Names): string {
  return `${names.service}-ledger`;
}

/**
 * `isolate` (the server): a SQLite file is used from a storage process of its own, so damage that
 * kills whatever maps the file (SIGBUS) ends that process alone. Tools keep it in-process.
 */
export async function openStore(cfg: Config, log?: Logger, opts: { isolate?: boolean } = {}): Promise<LedgerStore> {
  if (cfg.databaseUrl) {
    // The driver loads only for a database that is configured: svc issue on SQLite never maps it.
    const { PgStore } = await import('../ledger/postgres/store.js');
    return PgStore.open(cfg.databaseUrl, { onError: (e) => log?.('ledger_db_error', { error: e.message }) });
  }
  mkdirSync(cfg.dataDir, { recursive: true });
  if (opts.isolate) return ProcessStore.open(ledgerFile(cfg), { onExit: (why) => log?.('ledger_storage_process_exit', { why }) });
  return new SqliteStore(ledgerFile(cfg));
}

/**
 * Open the ledger and sign the empty head if new. The first read or append runs the start check
 * (O(log n) reads); with `background` (the default) the full check starts at once and runs in
 * slices at `SVC_LEDGER_CHECK_SHARE` of a core.
 */
export async function openLedger(
  cfg: Config,
  names: Names,
  ring: Keyring,
  log: Logger,
  opts: { background?: boolean; batchMs?: number; isolate?: boolean } = {},
): Promise<Ledger> {
  const store = await openStore(cfg, log, { isolate: opts.isolate });
  try {
    const ledger = new Ledger({
      store,
      names,
      log: logName(names),
      sthKey: ring.get('sth'),
      isPublished: (hex) => ring.publicKeys('sth').some((pk) => toHex(pk) === hex),
      // The high-water mark stays in the data folder (with the keys) whatever the store: each instance
      // remembers the largest head it has seen, so a database restored from an old copy reads as
      // a rollback on every instance that saw more.
      highWater: new FileHighWater(highWaterFile(cfg.dataDir), legacyHighWaterFile(cfg.dataDir)),
      findings: new FileFindingsRecord(findingsFile(cfg.dataDir)),
      checkpoints: checkpointer(ring, logOrigin(cfg, names), logRoles(cfg)),
      batchMs: opts.batchMs ?? cfg.ledgerBatchMs,
      ...(opts.background !== false ? { auditMs: cfg.ledgerAuditMs, checkShare: cfg.ledgerCheckShare } : {}),
      ...(nativeCrypto() ? { crypto: nativeCrypto()! } : {}),
    });
    await ledger.init();
    if (opts.background !== false) {
      void ledger.audit.fullCheckInBackground().then(
        () => log('ledger_full_check_done', { withheld: ledger.audit.withheld() }),
        (e: unknown) => log('ledger_full_check_failed', { error: messageWithCauses(e) }),
      );
    }
    return ledger;
  } catch (e) {
    await store.close().catch(() => undefined);
    throw e;
  }
}

// How often a ledger that could not be opened is tried again on the next request after it; and,
// with no request, in the background: 5 s after the failure, then twice as long each time up to a
// minute. An open can fail for a moment at start (two server processes making one fresh SQLite
// file together: one of them failed its first read, 1 of 5 stress runs; a database restarting),
// and a server then heals by itself, as /readyz shows, without waiting for traffic.
const RETRY_MS = 5_000;
const RETRY_MAX_MS = 60_000;

/** Runs `fn` after `ms` (never keeping the process alive); tests pass their own. */
export type Later = (fn: () => void, ms: number) => { cancel(): void };
const realLater: Later = (fn, ms) => {
  const t = setTimeout(fn, ms);
  t.unref();
  return { cancel: () => clearTimeout(t) };
};

/**
 * The server's ledger: the opened ledger, or, while the store cannot be opened (a truncated,
 * unreadable, read-only or corrupt file; a database that is down), a stand-in that answers 503 and
 * tries again now and then.
 */
export async function serveLedger(
  cfg: Config,
  names: Names,
  ring: Keyring,
  log: Logger,
  now: () => number = Date.now,
  later: Later = realLater,
): Promise<LedgerApi> {
  let ledger: Ledger | null = null;
  let opening: Promise<Ledger | null> | null = null;
  let lastTry = -Infinity;
  let closed = false;
  let retry: { cancel(): void } | null = null;
  let backoff = RETRY_MS;
  const retryLater = (): void => {
    retry?.cancel();
    const wait = backoff;
    backoff = Math.min(backoff * 2, RETRY_MAX_MS);
    retry = later(() => {
      retry = null;
      if (!closed && !ledger && !opening) void tryOpen();
    }, wait);
  };
  const tryOpen = (): Promise<Ledger | null> => {
    lastTry = now();
    opening ??= openLedger(cfg, names, ring, log, { isolate: true }).then(
      (l) => {
        // Closed while it opened: close() awaits this open and then closes it.
        ledger = l;
        retry?.cancel();
        log('ledger_opened', { store: ledgerLocation(cfg) });
        return l;
      },
      (e: unknown) => {
        log('ledger_unavailable', { store: ledgerLocation(cfg), error: messageWithCauses(e) });
        if (!closed) retryLater();
        return null;
      },
    );
    return opening.finally(() => {
      opening = null;
    });
  };
  const get = async (): Promise<Ledger> => {
    if (ledger) return ledger;
    if (opening || now() - lastTry >= RETRY_MS) {
      const l = await (opening ?? tryOpen());
      if (l) return l;
    }
    throw ledgerUnavailable();
  };
  const vkeys = checkpointer(ring, logOrigin(cfg, names), logRoles(cfg)).vkeys();
  // Logged in tryOpen; verification and the other endpoints start anyway.
  await tryOpen();
  return {
    head: async () => (await get()).head(),
    inclusion: async (q) => (await get()).inclusion(q),
    find: async (d) => (await get()).find(d),
    findAll: async (d) => (await get()).findAll(d),
    paths: async (i, size) => (await get()).paths(i, size),
    consistency: async (a, b, s) => (await get()).consistency(a, b, s),
    history: async (v) => (await get()).history(v),
    append: async (l) => (await get()).append(l),
    checkpoint: async () => (await get()).checkpoint(),
    tile: async (id) => (await get()).tile(id),
    // The keys are known without the store: the checkpointer is made from the keyring alone.
    vkeys: () => vkeys,
    close: async () => {
      closed = true;
      retry?.cancel();
      await opening?.catch(() => undefined);
      await (ledger as Ledger | null)?.close();
    },
  };
}
