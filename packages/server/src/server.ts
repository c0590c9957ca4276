// Running the reference server: the assembled parts (assemble.ts) served on node:http, the public
// port, the metrics listener and the private issuing listener, and the graceful shutdown that
// drains them before the parts are closed.
import type { Server } from 'node:http';
import { type AssembleOptions, assemble, type Parts, type PartsOptions } from './assemble.js';
import type { App } from './app.js';
import type { Config } from './config.js';
import { BodyBudget } from './http/body.js';
import { listen, publicServer } from './http/listen.js';
import { metricsListener } from './http/metrics-listener.js';
import { issueListener } from './issuing/listener.js';
import { issuerOf, signerPool } from './issuing/open.js';
import { VERSION } from './version.js';
export { VERSION };

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
  app: App;
  close(): Promise<void>;
}

/**
 * Start the reference server: keys, ledger, worker pool and the HTTP listener, from a Config.
 * The parts are assembleServer's; this serves them on node:http.
 *
 * @example
 * ```ts
 * const running = await startServer(loadConfig({ PORT: '8080', SVC_DATA_DIR: './data' }));
 * process.on('SIGTERM', () => running.close());
 * ```
 */
export function startServer(cfg: Config, opts: AssembleOptions = {}): Promise<Running> {
  return startProcess(cfg, opts);
}

/** startServer as a process of a cluster starts it: with its link to the primary (cli/serve.ts). */
export async function startProcess(cfg: Config, opts: PartsOptions = {}): Promise<Running> {
  const parts = await assemble(cfg, opts);
  try {
    return await serve(parts, opts);
  } catch (e) {
    // A listener that could not start (a port taken): what was assembled is closed, not left running.
    await parts.closers.close();
    throw e;
  }
}

async function serve(parts: Parts, opts: PartsOptions): Promise<Running> {
  const { cfg, log, metrics, ring, ledger, app, closers } = parts;
  const link = opts.cluster;
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
  let metricsServer: Server | null = null;
  let metricsUrl: string | undefined;
  let issueServer: Server | null = null;
  let issueUrl: string | undefined;
  try {
    // Metrics on a listener of their own (SVC_METRICS_LISTEN): only GET /metrics, nothing else.
    if (metrics && cfg.metricsListen && !link) {
      const listener = await metricsListener(cfg.metricsListen, () => metrics.text(), log);
      metricsServer = listener.server;
      metricsUrl = listener.url;
      log('metrics_listening', { url: metricsUrl });
    }
    // The private issuing listener (SVC_ISSUE_LISTEN): the same keys and served log, its own port.
    if (cfg.issue) {
      const published = ledger
        ? { checkpoint: () => ledger!.checkpoint(), timeoutMs: cfg.witnessPolicy ? cfg.witnessTimeoutMs * 3 : 10_000 }
        : null;
      // Signing on threads of its own: the public port's event loop is never held by a signature.
      const issueSigners = signerPool(cfg, cfg.issue.signers, log);
      if (issueSigners) closers.push('issuing signers', () => issueSigners.close());
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
  } catch (e) {
    // A listener that could not start: the ones already listening stop (startServer closes the parts).
    for (const l of [server, metricsServer]) {
      l?.close();
      l?.closeAllConnections();
    }
    throw e;
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
        parts.quiesce();
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
        // The listeners are drained: what they used is closed, last opened first.
        await closers.close();
        log('stopped', { ms: Math.round(performance.now() - started), forced });
      })()),
  };
}
