// The issuing library: an issuer opened once and kept (keys, the ledger as `svc serve` opens it, the
// log checked when it opens and then as a running server checks it), so signing an answer costs its
// signatures and a share of one signed head, not a process. `svc issue`, the private issuing API and
// the OpenAI-compatible front are all built on it.
import { namesFor } from '@svc/core';
import type { EnvelopeFormat, ProofBundle } from '@svc/core/issue';
import { loadConfig, type Config } from '../config.js';
import { nativeCrypto } from '../crypto/node.js';
import { Issuer, type IssueInput } from './issuer.js';
import type { ExportInput, RunInput, TranscriptInput } from './kinds.js';
import { ensureKeys } from '../keys/ensure.js';
import type { Keyring } from '../keys/keyring.js';
import type { LedgerApi } from '../ledger/api.js';
import type { Logger } from '../log.js';
import { scittService } from '../scitt/service.js';
import { openLedger } from '../tlog/open.js';
import { publishedCheckpoints } from '../tlog/witnessing.js';
import { SignerPool } from './signers.js';

/**
 * Where and how to issue. What is not given here defaults as `svc serve`'s defaults do; SVC_*
 * variables are read only from `env`, and only when it is given (`issuerSettingsFromEnv()`): a
 * variable of the host process never changes what a library call does unasked.
 *
 * @example
 * ```ts
 * const opts: IssuerSettings = { dataDir: './data', batchSeconds: 1, envelopes: ['jws'] };
 * ```
 */
export interface IssuerSettings {
  /** The data folder of the keys (and of the SQLite ledger); default `env`'s SVC_DATA_DIR, else ./data. */
  dataDir?: string;
  /** A PostgreSQL ledger shared with the servers; default `env`'s SVC_DATABASE_URL, else SQLite in dataDir. */
  databaseUrl?: string;
  /** How long answers gather before one signed head seals them (default SVC_LEDGER_BATCH_SECONDS, 1). */
  batchSeconds?: number;
  /** The default envelopes of every receipt (an answer may ask for its own). */
  envelopes?: readonly EnvelopeFormat[];
  /** SVC_* variables the other settings default from (default none: not process.env). */
  env?: NodeJS.ProcessEnv;
  /** Structured events (ledger opened, full check done); default none. */
  log?: Logger;
  /**
   * Threads that sign (default 1): signing leaves the caller's event loop free, and more threads
   * sign on more cores. 0 signs on the caller's thread.
   */
  signers?: number;
}

/**
 * Settings read from the environment as `svc serve` reads it (SVC_DATA_DIR, SVC_DATABASE_URL,
 * SVC_LEDGER, SVC_LEDGER_BATCH_SECONDS, SVC_LEDGER_CHECK_SHARE, SVC_SERVICE_NAME ...): the one
 * call through which an issuer reads it, so doing so is visible where it is done.
 *
 * @example
 * ```ts
 * const issuer = await openIssuer({ ...issuerSettingsFromEnv(), envelopes: ['jws'] });
 * ```
 */
export function issuerSettingsFromEnv(env: NodeJS.ProcessEnv = process.env): IssuerSettings {
  const vars: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(env)) if (k.startsWith('SVC_') && v !== undefined) vars[k] = v;
  return { env: vars };
}

/**
 * An open issuer. Keep one per process and share it: answers issued within one batch interval are
 * appended together, under one signed head.
 *
 * @example
 * ```ts
 * const issuer: SvcIssuer = await openIssuer({ dataDir: './data' });
 * const bundle = await issuer.issue({ answer: 'Paris.', prompt: 'Capital of France?' });
 * await issuer.close();
 * ```
 */
export interface SvcIssuer {
  /** Sign one answer; resolves once its leaf is committed under a signed head. */
  issue(input: IssueInput): Promise<ProofBundle>;
  /** Sign many answers as one append; resolves with the bundles in order. */
  issueMany(inputs: readonly IssueInput[]): Promise<ProofBundle[]>;
  /** Issue a transcript: its turns signed and logged together, as issueMany does. */
  issueTranscript(input: TranscriptInput<IssueInput>): Promise<Record<string, unknown>>;
  /** Sign an autopilot run's evidence pack (goal, steps, budget) under the autopilot context; log its hash. */
  issueRun(input: RunInput): Promise<Record<string, unknown>>;
  /** Sign a conversation export under the export context; log its manifest's hash. */
  issueExport(input: ExportInput): Promise<Record<string, unknown>>;
  /** Whether answers are logged (SVC_LEDGER is on). */
  readonly logging: boolean;
  /** Seal what is pending under a signed head and close the ledger. */
  close(): Promise<void>;
}

/** What an issuer appends to and proves from: a ledger, or the log a server serves. */
export type IssuingLedger = Pick<LedgerApi, 'append' | 'inclusion' | 'paths' | 'findAll' | 'checkpoint'>;

/**
 * The issuer of a caller that already holds the pieces (the server, `svc issue`). `published` is
 * where logged answers and SCITT receipts find the published checkpoint.
 */
export function issuerOf(
  cfg: Config,
  ring: Keyring,
  ledger: IssuingLedger | null,
  published: { checkpoint: () => Promise<string>; timeoutMs: number } | null,
  defaults: { envelopes?: readonly EnvelopeFormat[]; signer?: SignerPool } = {},
): Issuer {
  const names = namesFor(cfg.service);
  return new Issuer(ring, names, ledger, {
    slhDiversity: cfg.slhDiversity,
    bridge: cfg.bridge,
    ...(nativeCrypto() ? { crypto: nativeCrypto()! } : {}),
    ...(defaults.envelopes?.length ? { envelopes: defaults.envelopes } : {}),
    ...(defaults.signer ? { signer: (inputs: readonly IssueInput[], owner?: string) => defaults.signer!.sign(inputs, owner) } : {}),
    ...(published && ledger
      ? {
          logged: published,
          scitt: {
            service: scittService(cfg, names, ring, {
              append: (l) => ledger.append(l),
              findAll: (d) => ledger.findAll(d),
              paths: (i, s) => ledger.paths(i, s),
              checkpoint: published.checkpoint,
            }),
            timeoutMs: published.timeoutMs,
          },
        }
      : {}),
  });
}

/** The signing threads of an issuer on this configuration's keys, or null to sign on the caller's thread. */
export function signerPool(cfg: Config, threads: number, log: Logger, envelopes?: readonly EnvelopeFormat[]): SignerPool | null {
  if (!Number.isSafeInteger(threads) || threads < 0 || threads > 256)
    throw new Error(`signers must be an integer from 0 to 256, got ${threads}`);
  if (threads === 0) return null;
  return new SignerPool(
    threads,
    {
      dataDir: cfg.dataDir,
      service: cfg.service,
      slhDiversity: cfg.slhDiversity,
      bridge: cfg.bridge,
      ...(envelopes?.length ? { envelopes } : {}),
    },
    log,
  );
}

/**
 * Open an issuer on a data folder (and its SQLite ledger) or a PostgreSQL ledger: safe beside
 * `svc serve`, other issuers and `svc issue` on the same folder or database.
 *
 * @example
 * ```ts
 * import { openIssuer } from '@svc/server';
 *
 * const issuer = await openIssuer({ dataDir: './data' });
 * const [a, b] = await issuer.issueMany([{ answer: 'Yes.' }, { answer: 'No.' }]);
 * await issuer.close();
 * ```
 */
export async function openIssuer(settings: IssuerSettings = {}): Promise<SvcIssuer> {
  const env = settings.env ?? {};
  const cfg = loadConfig(env, {
    ...(settings.dataDir !== undefined ? { dataDir: settings.dataDir } : {}),
    ...(settings.databaseUrl !== undefined ? { databaseUrl: settings.databaseUrl } : {}),
    ...(settings.batchSeconds !== undefined ? { ledgerBatchMs: Math.round(settings.batchSeconds * 1000) } : {}),
  });
  const log: Logger = settings.log ?? (() => {});
  const names = namesFor(cfg.service);
  const ring = ensureKeys(cfg, log);
  // The first append waits only for the start check (O(log n) reads); the full check starts now in
  // the background at SVC_LEDGER_CHECK_SHARE of a core, then again every SVC_LEDGER_AUDIT_SECONDS,
  // as in a running server: never once per answer.
  const ledger = cfg.ledger ? await openLedger(cfg, names, ring, log, { background: true }) : null;
  const signer = signerPool(cfg, settings.signers ?? 1, log, settings.envelopes);
  const issuer = issuerOf(cfg, ring, ledger, ledger ? publishedCheckpoints(cfg, ledger, log) : null, {
    ...(settings.envelopes ? { envelopes: settings.envelopes } : {}),
    ...(signer ? { signer } : {}),
  });
  let closed: Promise<void> | null = null;
  return {
    issue: (input) => issuer.issue(input),
    issueMany: (inputs) => issuer.issueMany(inputs),
    issueTranscript: (input) => issuer.issueTranscript(input),
    issueRun: (input) => issuer.issueRun(input),
    issueExport: (input) => issuer.issueExport(input),
    logging: ledger !== null,
    close: () =>
      (closed ??= (async () => {
        await ledger?.close();
        await signer?.close();
      })()),
  };
}
