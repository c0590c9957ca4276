// The parts of the reference server, put together from a Config with no socket opened: keys (dev
// keys on first run), the verification pool, the council probe, the ledger and its witnessing, the
// witness it may also be, SCITT, metrics, and the app over them. server.ts serves the parts on
// node:http; another runtime serves `app.fetch` itself (Bun.serve, Deno.serve). Everything opened
// here is on one list of closers, closed last-opened first.
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { namesFor } from '@svc/core';
import { toBase64Url, toHex } from '@svc/core/primitives';
import { parsePolicy } from '@svc/core/tlog';
import { AggregatorRegistry } from 'prom-client';
import { type App, createApp } from './app.js';
import type { ClusterLink } from './cluster/link.js';
import type { Config } from './config.js';
import { CouncilProbe, loadCouncilConfig } from './council/probe.js';
import { backendReport, nativeCrypto } from './crypto/node.js';
import { builtFile } from './entries.js';
import { HttpError } from './http/errors.js';
import { Metrics } from './http/metrics.js';
import { ensureKeys } from './keys/ensure.js';
import type { Keyring } from './keys/keyring.js';
import { modelPlaneKeys, pinnedKeys, pubkeyResponse } from './keys/publish.js';
import type { LedgerApi } from './ledger/api.js';
import { jsonLogger, type Logger } from './log.js';
import { type Executor, WorkerPool } from './pool/pool.js';
import { poolStatementChecker, scittPolicy } from './scitt/policy.js';
import { scittLogKeys, scittService } from './scitt/service.js';
import { type LogApi, witnessedLog } from './tlog/api.js';
import { ownLogPolicy } from './tlog/checkpoints.js';
import { askedWitnesses, Witnessing, type WitnessingStatus } from './tlog/witnessing.js';
import { Closers } from './util/closers.js';
import { fresh } from './util/fresh.js';
import { VERSION } from './version.js';
import { openWitness } from './witness-app.js';

/** How often the log looks for a new checkpoint to ask its witnesses about. */
const WITNESS_ROUND_MS = 250;

/** How often a cluster process asks its primary for the aggregate, however often it is scraped. */
const CLUSTER_SCRAPE_MS = 1_000;

/**
 * What startServer and assembleServer take besides the Config: a logger, and the environment the
 * council probe and the issuing listener read their keys and tokens from (default process.env).
 *
 * @example
 * ```ts
 * const options: AssembleOptions = { log: jsonLogger('info'), env: { COUNCIL_KEY_A: 'k' } };
 * ```
 */
export interface AssembleOptions {
  log?: Logger;
  env?: NodeJS.ProcessEnv;
}

/** A process of a cluster (SVC_PROCESSES > 1) also has its link: limits, council, metrics and witnessing are shared. */
export interface PartsOptions extends AssembleOptions {
  cluster?: ClusterLink;
}

/** The assembled parts, for the node:http half (server.ts). */
export interface Parts {
  cfg: Config;
  log: Logger;
  metrics: Metrics | null;
  ring: Keyring;
  ledger: LogApi | null;
  app: App;
  closers: Closers;
  /** Stops the background work that would start more (the witnessing rounds): first in a shutdown. */
  quiesce(): void;
}

/** In a cluster, /metrics answers for every process: the primary aggregates them. */
function clusterMetrics(m: Metrics, link: ClusterLink): Pick<Metrics, 'request' | 'text'> {
  const aggregate = fresh(CLUSTER_SCRAPE_MS, () => link.metrics());
  return {
    request: (...a) => m.request(...a),
    text: async () => {
      const body = await aggregate();
      // A primary that is busy or restarting is a moment's unavailability, not an internal error.
      if (body === null)
        throw new HttpError('unavailable', 'the cluster primary did not answer for metrics; retry shortly', { retryAfter: 1 });
      return { body, contentType: m.registry.contentType };
    },
  };
}

/** The verifier page with this server's published keys embedded, so it pins them offline. */
function pageLoader(keys: unknown): () => string | null {
  const file = fileURLToPath(builtFile('page.html', import.meta.url));
  let cached: string | null = null;
  const embedded = JSON.stringify(keys).replace(/</g, '\\u003c');
  return () => {
    if (cached === null && existsSync(file)) {
      cached = readFileSync(file, 'utf8').replace(
        '<script type="application/json" id="pinned-keys">null</script>',
        () => `<script type="application/json" id="pinned-keys">${embedded}</script>`,
      );
    }
    return cached;
  };
}

/** The ledger as served: witnessed when a policy names witnesses (asked by this process, or shared by the cluster's leader). */
function witnessing(cfg: Config, raw: LedgerApi, log: Logger, link: ClusterLink | undefined): { log: LogApi; stop: () => void } {
  const policy = parsePolicy(readFileSync(cfg.witnessPolicy!, 'utf8'));
  if (link && !link.leader) {
    const idle: WitnessingStatus = { latestSize: null, publishedSize: null, lagMs: 0, cosigned: 0, witnesses: askedWitnesses(policy) };
    const shared = witnessedLog(
      raw,
      () => link.witnessing()?.published ?? null,
      () => link.witnessing()?.status ?? idle,
    );
    return { log: shared, stop: () => {} };
  }
  // Checkpoints are published only once the policy's quorum of witnesses has cosigned them.
  const w = new Witnessing(raw, policy, { log, timeoutMs: cfg.witnessTimeoutMs });
  const round = () => w.round().then(() => link?.shareWitnessing({ published: w.publishedNote(), status: w.status() }));
  const timer = setInterval(() => void round(), WITNESS_ROUND_MS);
  timer.unref();
  void round();
  const witnessed = witnessedLog(
    raw,
    () => w.publishedNote(),
    () => w.status(),
  );
  return { log: witnessed, stop: () => clearInterval(timer) };
}

/** Every part of the server from `cfg`, no socket opened (server.ts serves them). */
export async function assemble(cfg: Config, opts: PartsOptions = {}): Promise<Parts> {
  let ledgerRef: LogApi | null = null;
  let poolRef: Executor | null = null;
  const poolStats = () => (poolRef && 'stats' in poolRef ? (poolRef as WorkerPool).stats() : null);
  const metrics = cfg.metrics ? new Metrics({ ledger: () => ledgerRef, pool: poolStats }) : null;
  const baseLog = opts.log ?? jsonLogger(cfg.log && cfg.logLevel);
  const log = metrics ? metrics.counting(baseLog) : baseLog;
  const closers = new Closers((part, error) => log('close_failed', { part, error }));
  const names = namesFor(cfg.service);
  const ring = ensureKeys(cfg, log);
  const trustedKeys = pinnedKeys(ring, names, cfg.slhDiversity);
  log('crypto_backend', { node: process.versions.node, ...backendReport(nativeCrypto()) });
  const trustedBridgeKeys = modelPlaneKeys(ring, names, cfg.bridge).keys;
  const logPolicy = ownLogPolicy(cfg, names, ring);
  const executor = WorkerPool.create(
    cfg.workers,
    {
      service: cfg.service,
      trustedKeys,
      trustedBridgeKeys,
      trustedEnvelopeKeys: ring.publicKeys('envelope-ed25519').map((pk) => ({ algo: 'Ed25519' as const, public_key_hex: toHex(pk) })),
      ...(logPolicy ? { logPolicy } : {}),
      ...(cfg.ledger ? { scittLogKeys: scittLogKeys(cfg, ring), scittPolicy: scittPolicy(cfg, ring, names) } : {}),
    },
    cfg.pool,
    log,
  );
  closers.push('verification pool', () => executor.close());
  try {
    const link = opts.cluster;
    if (link && metrics) {
      // The primary gathers this registry with every other process's (prom-client's cluster mode).
      AggregatorRegistry.setRegistries([metrics.registry]);
      new AggregatorRegistry();
    }
    const council = link
      ? { health: () => link.council() }
      : new CouncilProbe(() => loadCouncilConfig(cfg.councilFile), opts.env ?? process.env, log);
    let ledger: LogApi | null = null;
    let stopRounds = () => {};
    if (cfg.ledger) {
      // A ledger that cannot be opened answers 503 and is retried; verification never depends on it.
      const raw = await (await import('./tlog/open.js')).serveLedger(cfg, names, ring, log);
      if (raw) closers.push('ledger', () => raw.close().catch(() => undefined));
      ledger = raw;
      if (raw && cfg.witnessPolicy) {
        // In a cluster only the leader asks the witnesses; the others serve what it shares.
        const w = witnessing(cfg, raw, log, link);
        ledger = w.log;
        stopRounds = w.stop;
        closers.push('witnessing rounds', stopRounds);
      }
    }
    // This server may also be a witness for other logs (or its own peers).
    const witnessed = cfg.witnessServePolicy ? await openWitness(cfg, readFileSync(cfg.witnessServePolicy, 'utf8'), log) : null;
    if (witnessed) closers.push('witness store', () => witnessed.store.close());
    ledgerRef = ledger;
    poolRef = executor;
    // Statements are checked in the pool, whose settings carry the issuer keys.
    const scitt = ledger ? scittService(cfg, names, ring, ledger, Date.now, poolStatementChecker(executor)) : null;
    const app = createApp({
      // With a listener of its own, the public port does not serve metrics (404).
      metrics: cfg.metricsListen || !metrics ? null : link ? clusterMetrics(metrics, link) : metrics,
      ...(link ? { limit: (ip: string, group: string, perMinute: number) => link.take(ip, group, perMinute) } : {}),
      poolStats,
      witness: witnessed?.witness ?? null,
      cfg,
      names,
      ring,
      executor,
      council,
      ledger,
      scitt,
      log,
      version: VERSION,
      // The page pins what the server publishes: its answer keys, its model-plane keys, its log's
      // keys (the policy it judges checkpoints by) and the log's SCITT receipt keys as
      // /.well-known/scitt-keys serves them (a COSE_KeySet, base64url).
      page: pageLoader({
        ...pubkeyResponse(ring, names, cfg.slhDiversity),
        model_plane_keys: trustedBridgeKeys,
        ...(logPolicy ? { log_policy: logPolicy } : {}),
        ...(scitt ? { scitt_keys: toBase64Url(scitt.keySet()) } : {}),
      }),
      cryptoBackends: backendReport(nativeCrypto()),
    });
    return { cfg, log, metrics, ring, ledger, app, closers, quiesce: stopRounds };
  } catch (e) {
    // What was opened before the failure is closed: nothing is left running.
    await closers.close();
    throw e;
  }
}

/**
 * A server's parts without a socket: the app (as `app.fetch`, a WHATWG Request to a Response) over
 * the keys, the verification pool, the ledger and the rest a Config names, and `close`, which
 * closes them last-opened first. Serve `app.fetch` from any HTTP layer; `startServer` is this plus
 * node:http listeners.
 *
 * @example
 * ```ts
 * const parts = await assembleServer(loadConfig({ SVC_DATA_DIR: './data' }));
 * Deno.serve((req) => parts.app.fetch(req));
 * // later: await parts.close();
 * ```
 */
export async function assembleServer(cfg: Config, opts: AssembleOptions = {}): Promise<AssembledServer> {
  const p = await assemble(cfg, opts);
  return { app: p.app, close: () => p.closers.close() };
}

/**
 * What assembleServer returns: the app and the one way to close what it opened.
 *
 * @example
 * ```ts
 * const { app, close }: AssembledServer = await assembleServer(cfg);
 * ```
 */
export interface AssembledServer {
  app: App;
  close(): Promise<void>;
}
