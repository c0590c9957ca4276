// Assembling and running the reference server: configuration, keyring (dev keys on first run),
// worker pool, council probe, ledger, node:http, graceful shutdown on SIGTERM.
import type { Server } from 'node:http';
import { parsePolicy } from '@svc/core/tlog';
import { Witnessing, askedWitnesses, type WitnessingStatus } from './tlog/witnessing.js';
import { witnessedLog, type LogApi } from './tlog/api.js';
import { AggregatorRegistry } from 'prom-client';
import type { ClusterLink } from './cluster/link.js';
import { openWitness } from './witness-app.js';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { namesFor } from '@svc/core';
import { toBase64Url, toHex } from '@svc/core/primitives';
import { createApp } from './app.js';
import type { Config } from './config.js';
import { loadCouncilConfig, CouncilProbe } from './council/probe.js';
import { BodyBudget } from './http/body.js';
import { listen, publicServer } from './http/listen.js';
import { metricsListener } from './http/metrics-listener.js';
import { HttpError } from './http/errors.js';
import { fresh } from './util/fresh.js';
import type { Keyring } from './keys/keyring.js';
import { modelPlaneKeys, pinnedKeys, pubkeyResponse } from './keys/publish.js';
import type { LedgerApi } from './ledger/api.js';
import { jsonLogger, type Logger } from './log.js';
import { WorkerPool, type Executor } from './pool/pool.js';
import { Metrics } from './http/metrics.js';
import { backendReport, nativeCrypto } from './crypto/node.js';

import { VERSION } from './version.js';
import { ownLogPolicy } from './tlog/checkpoints.js';
import { builtFile } from './entries.js';
import { ensureKeys } from './keys/ensure.js';
import { scittLogKeys, scittService } from './scitt/service.js';
import { poolStatementChecker, scittPolicy } from './scitt/policy.js';
import { issuerOf, signerPool } from './issuing/open.js';
import type { SignerPool } from './issuing/signers.js';
import { issueListener } from './issuing/listener.js';
export { ensureKeys };

export { VERSION };

/** How often the log looks for a new checkpoint to ask its witnesses about. */
const WITNESS_ROUND_MS = 250;

/**
 * A started server: its URL, the app and a way to stop it.
 *
 * @example
 * ```ts
 * const running: Running = await startServer(loadConfig({ PORT: '0' }));
 * console.log(running.url);
 * await running.close();
 * ```
 */
export interface Running {
  server: Server;
  url: string;
  /** Where /metrics is served when SVC_METRICS_LISTEN gives it a listener of its own. */
  metricsUrl?: string;
  /** The private issuing listener's base URL, when SVC_ISSUE_LISTEN starts one. */
  issueUrl?: string;
  app: ReturnType<typeof createApp>;
  close(): Promise<void>;
}

/** How often a cluster process asks its primary for the aggregate, however often it is scraped. */
const CLUSTER_SCRAPE_MS = 1_000;

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

/**
 * Start the reference server: keys, ledger, worker pool and the HTTP listener, from a Config.
 *
 * @example
 * ```ts
 * const running = await startServer(loadConfig({ PORT: '8080', SVC_DATA_DIR: './data' }));
 * process.on('SIGTERM', () => running.close());
 * ```
 */
export async function startServer(
  cfg: Config,
  opts: {
    log?: Logger;
    executor?: Executor;
    ledger?: (ring: Keyring) => LedgerApi | null | Promise<LedgerApi | null>;
    env?: NodeJS.ProcessEnv;
    /** Set in a process of a cluster (SVC_PROCESSES > 1): limits, council, metrics and witnessing are shared. */
    cluster?: ClusterLink;
  } = {},
): Promise<Running> {
  let ledgerRef: LogApi | null = null;
  let poolRef: Executor | null = null;
  const poolStats = () => (poolRef && 'stats' in poolRef ? (poolRef as WorkerPool).stats() : null);
  const metrics = cfg.metrics ? new Metrics({ ledger: () => ledgerRef, pool: poolStats }) : null;
  const baseLog = opts.log ?? jsonLogger(cfg.log && cfg.logLevel);
  const log = metrics ? metrics.counting(baseLog) : baseLog;
  const names = namesFor(cfg.service);
  const ring = ensureKeys(cfg, log);
  const trustedKeys = pinnedKeys(ring, names, cfg.slhDiversity);
  log('crypto_backend', { node: process.versions.node, ...backendReport(nativeCrypto()) });
  const trustedBridgeKeys = modelPlaneKeys(ring, names, cfg.bridge).keys;
  const logPolicy = ownLogPolicy(cfg, names, ring);
  const ownPool = !opts.executor;
  const executor =
    opts.executor ??
    WorkerPool.create(
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
  let witnessTimer: ReturnType<typeof setInterval> | undefined;
  if (cfg.ledger) {
    // A ledger that cannot be opened answers 503 and is retried; verification never depends on it.
    ledger = opts.ledger ? await opts.ledger(ring) : await (await import('./tlog/open.js')).serveLedger(cfg, names, ring, log);
    if (cfg.witnessPolicy && ledger) {
      // Checkpoints are published only once the policy's quorum of witnesses has cosigned them.
      // In a cluster only the leader asks the witnesses; the others serve what it shares.
      const raw: LedgerApi = ledger;
      const policy = parsePolicy(readFileSync(cfg.witnessPolicy, 'utf8'));
      if (!link || link.leader) {
        const w = new Witnessing(raw, policy, { log, timeoutMs: cfg.witnessTimeoutMs });
        ledger = witnessedLog(
          raw,
          () => w.publishedNote(),
          () => w.status(),
        );
        const round = () => w.round().then(() => link?.shareWitnessing({ published: w.publishedNote(), status: w.status() }));
        witnessTimer = setInterval(() => void round(), WITNESS_ROUND_MS);
        witnessTimer.unref();
        void round();
      } else {
        const idle: WitnessingStatus = { latestSize: null, publishedSize: null, lagMs: 0, cosigned: 0, witnesses: askedWitnesses(policy) };
        ledger = witnessedLog(
          raw,
          () => link.witnessing()?.published ?? null,
          () => link.witnessing()?.status ?? idle,
        );
      }
    }
  }
  // This server may also be a witness for other logs (or its own peers).
  const witnessed = cfg.witnessServePolicy ? await openWitness(cfg, readFileSync(cfg.witnessServePolicy, 'utf8'), log) : null;
  ledgerRef = ledger;
  poolRef = executor;
  // Statements are checked in the pool this server made (its settings carry the issuer keys); an
  // executor handed in carries its caller's settings, so the service checks them itself.
  const scitt = ledger ? scittService(cfg, names, ring, ledger, Date.now, ownPool ? poolStatementChecker(executor) : undefined) : null;
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
  let shuttingDown = false;
  // SVC_BODY_BUDGET_MB bounds the whole server: a cluster's processes each take an equal share,
  // and a process's listeners (the public port, the issuing one) draw on that one share.
  const bodies = new BodyBudget(Math.floor(cfg.bodyBudgetBytes / (link ? Math.max(1, cfg.processes) : 1)));
  const server = publicServer(cfg, app.handle, log, { closing: () => shuttingDown, budget: bodies });
  // A client that sends its whole request and then half-closes (FIN) still gets its answer; Node's
  // default aborts the request at the FIN. (httpAllowHalfOpen: an http.Server field Node's own
  // socketOnEnd reads; no constructor option sets it.)
  (server as unknown as { httpAllowHalfOpen: boolean }).httpAllowHalfOpen = true;
  const url = await listen(server, cfg.host, cfg.port);
  log('listening', {
    url,
    service: cfg.service,
    dataDir: cfg.dataDir,
    workers: cfg.workers,
    ledger: cfg.ledger ? (cfg.databaseUrl ? 'postgres' : 'sqlite') : false,
  });
  // Metrics on a listener of their own (SVC_METRICS_LISTEN): only GET /metrics, nothing else.
  let metricsServer: Server | null = null;
  let metricsUrl: string | undefined;
  if (metrics && cfg.metricsListen && !link) {
    const listener = await metricsListener(cfg.metricsListen, () => metrics.text(), log);
    metricsServer = listener.server;
    metricsUrl = listener.url;
    log('metrics_listening', { url: metricsUrl });
  }
  // The private issuing listener (SVC_ISSUE_LISTEN): the same keys and served log, its own port.
  let issueServer: Server | null = null;
  let issueSigners: SignerPool | null = null;
  let issueUrl: string | undefined;
  if (cfg.issue) {
    const published = ledger
      ? { checkpoint: () => ledger!.checkpoint(), timeoutMs: cfg.witnessPolicy ? cfg.witnessTimeoutMs * 3 : 10_000 }
      : null;
    // Signing on threads of its own: the public port's event loop is never held by a signature.
    issueSigners = signerPool(cfg, cfg.issue.signers, log);
    const issuer = issuerOf(cfg, ring, ledger, published, issueSigners ? { signer: issueSigners } : {});
    const started = await issueListener(cfg, cfg.issue, issuer, log, {
      ...(opts.env ? { env: opts.env } : {}),
      ...(link ? { take: (name: string, perMinute: number, count?: number) => link.take(name, 'issue', perMinute, count) } : {}),
      closing: () => shuttingDown,
      budget: bodies,
    });
    issueServer = started.server;
    issueUrl = started.url;
    log('issue_listening', { url: issueUrl, tokens: started.tokens.count(), tls: Boolean(cfg.issue.tls) });
  }
  let closing: Promise<void> | null = null;
  return {
    server,
    url,
    ...(metricsUrl ? { metricsUrl } : {}),
    ...(issueUrl ? { issueUrl } : {}),
    app,
    close: () =>
      (closing ??= (async () => {
        const started = performance.now();
        log('shutdown_started', { deadlineMs: cfg.shutdownMs });
        shuttingDown = true;
        clearInterval(witnessTimer);
        metricsServer?.close();
        metricsServer?.closeAllConnections();
        const issueClosed = issueServer ? new Promise<void>((r) => issueServer!.close(() => r())) : Promise.resolve();
        issueServer?.closeIdleConnections();
        const closed = Promise.all([new Promise<void>((r) => server.close(() => r())), issueClosed]).then(() => undefined);
        // Idle keep-alive sockets go at once, and so does each one as its last answer is sent.
        server.closeIdleConnections();
        const sweep = setInterval(() => {
          server.closeIdleConnections();
          issueServer?.closeIdleConnections();
        }, 50);
        let timer: ReturnType<typeof setTimeout> | undefined;
        const deadline = new Promise<'deadline'>((r) => (timer = setTimeout(() => r('deadline'), cfg.shutdownMs)));
        const forced = (await Promise.race([closed, deadline])) === 'deadline';
        if (forced) {
          server.closeAllConnections();
          issueServer?.closeAllConnections();
        }
        await closed;
        clearInterval(sweep);
        clearTimeout(timer);
        await executor.close();
        await issueSigners?.close();
        await ledger?.close().catch(() => undefined);
        await witnessed?.store.close();
        log('stopped', { ms: Math.round(performance.now() - started), forced });
      })()),
  };
}
