// `svc serve` with SVC_PROCESSES > 1: a primary that forks the server processes (node:cluster,
// one shared port) and holds what must be one per server: the sliding-window rate limiter (so a
// client's limit is exact across processes), the council probe (one probe per 5 minutes, not one
// per process), the metrics of every process, and the witnessing state the leader gathers. It
// restarts a process that dies, for as long as it runs, and on SIGTERM or SIGINT stops them all
// gracefully (exit 0). The only other way out is a start that cannot succeed (no process ever
// listened: a port in use, say), which exits 1 with a line saying why.
import cluster, { type Worker } from 'node:cluster';
import type { Server } from 'node:http';
import { namesFor } from '@svc/core';
import { AggregatorRegistry, Counter, Registry } from 'prom-client';
import type { Config } from '../config.js';
import { CouncilProbe, loadCouncilConfig } from '../council/probe.js';
import { addressInUse, EXIT_ADDRESS_IN_USE } from '../http/listen.js';
import { metricsListener } from '../http/metrics-listener.js';
import { RateLimiter } from '../http/ratelimit.js';
import type { Logger } from '../log.js';
import { ensureKeys } from '../keys/ensure.js';
import { logOrigin } from '../tlog/checkpoints.js';
import { fresh } from '../util/fresh.js';
import { type Notice, type SharedWitnessing, asAsk, asNotice } from './messages.js';

/** A process that dies within this long of its start is crash-looping: its restarts back off. */
const STABLE_MS = 10_000;
const MAX_BACKOFF_MS = 10_000;
/** The cluster's metrics are aggregated at most this often, however often they are scraped. */
const METRICS_INTERVAL_MS = 1_000;
/** Signals sent from outside a process; a crash of its own (SIGSEGV, SIGABRT, SIGBUS) is not one. */
const OUTSIDE_SIGNALS: ReadonlySet<string> = new Set(['SIGINT', 'SIGTERM', 'SIGKILL', 'SIGHUP', 'SIGQUIT']);

/** A message to a process that may have died a moment ago: the failure is its exit's to report. */
function sendTo(w: Worker, m: unknown): void {
  if (!w.isConnected()) return;
  try {
    w.send(m as never, undefined, () => undefined);
  } catch {
    // the channel closed between the check and the send
  }
}

export interface Primary {
  /** Resolves once every process listens, with the URL they share. */
  ready: Promise<string>;
  /** Resolves with the exit code once every process has stopped. */
  stopped: Promise<number>;
  stop(): void;
  restarts(): number;
}

export function startPrimary(cfg: Config, log: Logger, env: NodeJS.ProcessEnv = process.env): Primary {
  // Keys first, once: processes starting together must not each make development keys.
  ensureKeys(cfg, log);
  // and the log's origin, kept beside them, for the same reason.
  if (cfg.ledger) logOrigin(cfg, namesFor(cfg.service));
  const limiter = new RateLimiter();
  const council = new CouncilProbe(() => loadCouncilConfig(cfg.councilFile), env, log);
  const registry = new Registry();
  const restartCounter = new Counter({
    name: 'svc_process_restarts_total',
    help: 'Server processes the primary restarted after they died.',
    registers: [registry],
  });
  const aggregator = cfg.metrics ? new AggregatorRegistry() : null;
  const live = new Map<number, Worker>();
  const started = new Map<number, number>();
  const failures = new Map<number, number>();
  let witnessing: SharedWitnessing | null = null;
  let stopping = false;
  let restarts = 0;
  let metricsServer: Server | null = null;
  let resolveReady!: (url: string) => void;
  let resolveStopped!: (code: number) => void;
  const ready = new Promise<string>((r) => (resolveReady = r));
  const stopped = new Promise<number>((r) => (resolveStopped = r));
  const urls = new Set<number>();

  // One aggregation per interval however many scrapes arrive: each one asks every process.
  const metricsText = fresh(METRICS_INTERVAL_MS, async (): Promise<string | null> => {
    if (!aggregator) return null;
    try {
      return (await aggregator.clusterMetrics()) + (await registry.metrics());
    } catch {
      return null;
    }
  });
  let everReady = false;

  const onMessage = (index: number, w: Worker, m: unknown) => {
    const a = asAsk(m);
    if (a) {
      const reply = (value: unknown) => sendTo(w, { svc: 'answer', id: a.id, value });
      if (a.svc === 'take') reply(limiter.take(a.ip, a.group, a.perMinute, a.count ?? 1));
      else if (a.svc === 'council') council.health().then(reply, () => reply(null));
      else metricsText().then(reply, () => reply(null));
      return;
    }
    const n: Notice | null = asNotice(m);
    if (n?.svc === 'ready') {
      urls.add(index);
      // One process listening proves the start can succeed: from then on a death is restarted.
      everReady = true;
      if (urls.size === cfg.processes) resolveReady(n.url);
    } else if (n?.svc === 'witnessing' && index === 0) {
      // Only the leader gathers cosignatures; what it publishes, every process serves.
      witnessing = n.state;
      for (const [i, other] of live) if (i !== 0) sendTo(other, { svc: 'witnessing', state: n.state });
    }
  };

  const fork = (index: number) => {
    const w = cluster.fork({ ...env, SVC_PROCESS_INDEX: String(index) });
    live.set(index, w);
    started.set(index, Date.now());
    w.on('message', (m: unknown) => onMessage(index, w, m));
    // A send that races the process's death (ours, or prom-client's metrics request) fails here,
    // not as an unhandled EPIPE that would take the primary and the port down with it.
    w.on('error', (e: Error) => log('process_ipc_error', { process: index, error: e.message }));
    // Node's own notice that the process's server listens on the shared port: sent before the
    // process's 'ready', and as soon as a client can connect, so a peer that dies on seeing the port
    // answer is never taken for a start that cannot succeed.
    w.on('listening', () => {
      everReady = true;
    });
    w.on('online', () => {
      if (witnessing && index !== 0) sendTo(w, { svc: 'witnessing', state: witnessing });
    });
    w.on('exit', (code, signal) => {
      if (live.get(index) === w) live.delete(index);
      if (stopping) {
        if (live.size === 0) finish(exitCode);
        return;
      }
      if (!everReady && !(signal && OUTSIDE_SIGNALS.has(signal))) {
        // A process that fails before any process ever listened: the start itself cannot
        // succeed (the port is taken, the data folder unreadable). Restarting would loop forever.
        // A process stopped by a signal from outside (an operator's kill, the OOM killer, Ctrl-C
        // reaching one process) has not shown that, and is restarted as any other.
        if (code === EXIT_ADDRESS_IN_USE && !told) {
          told = true;
          process.stderr.write(`svc: ${addressInUse(cfg.host, cfg.port)}\n`);
        }
        log('cluster_start_failed', {
          process: index,
          code,
          signal,
          note: 'a server process exited before listening; its error is above. Nothing is restarted.',
        });
        exitCode = 1;
        stop();
        return;
      }
      restarts++;
      restartCounter.inc();
      const quick = Date.now() - (started.get(index) ?? 0) < STABLE_MS;
      const n = quick ? (failures.get(index) ?? 0) + 1 : 0;
      failures.set(index, n);
      const delay = n === 0 ? 0 : Math.min(MAX_BACKOFF_MS, 250 * 2 ** (n - 1));
      log('process_exit', { process: index, code, signal, restart_in_ms: delay });
      // Not unref'd: with every process down, this timer is what keeps the primary (and the port's
      // supervision) alive until the restart.
      setTimeout(() => !stopping && fork(index), delay);
    });
  };

  let deadline: ReturnType<typeof setTimeout> | undefined;
  let exitCode = 0;
  // A taken port is said once, however many processes found it taken.
  let told = false;
  // Holds the event loop while the primary supervises: it exits only through finish().
  const supervising = setInterval(() => undefined, 60_000);
  const finish = (code: number) => {
    clearTimeout(deadline);
    clearInterval(supervising);
    metricsServer?.close();
    log('stopped', { processes: cfg.processes, code });
    resolveStopped(code);
  };

  for (let i = 0; i < cfg.processes; i++) fork(i);
  log('cluster_started', { processes: cfg.processes, workers_per_process: cfg.workers });

  if (aggregator && cfg.metricsListen) {
    const where = cfg.metricsListen;
    void metricsListener(
      where,
      async () => {
        const t = await metricsText();
        return t === null ? null : { body: t, contentType: registry.contentType };
      },
      log,
    ).then(({ server, url }) => {
      metricsServer = server;
      log('metrics_listening', { url });
    });
  }

  function stop(): void {
    if (stopping) return;
    stopping = true;
    log('shutdown_started', { deadlineMs: cfg.shutdownMs, processes: live.size });
    if (live.size === 0) {
      finish(exitCode);
      return;
    }
    for (const w of live.values()) sendTo(w, { svc: 'shutdown' });
    // Each process keeps its own deadline; this one only catches a process that hangs past it.
    deadline = setTimeout(() => {
      for (const w of live.values()) w.process.kill('SIGKILL');
    }, cfg.shutdownMs + 5_000);
  }

  return { ready, stopped, restarts: () => restarts, stop };
}
