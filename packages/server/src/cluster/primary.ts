// `svc serve` with SVC_PROCESSES > 1: a primary that forks the server processes (node:cluster,
// one shared port) and holds what must be one per server: the sliding-window rate limiter (so a
// client's limit is exact across processes), the council probe (one probe per 5 minutes, not one
// per process), the metrics of every process, and the witnessing state the leader gathers. It
// restarts a process that dies, and on SIGTERM or SIGINT stops them all gracefully.
import cluster, { type Worker } from 'node:cluster';
import type { Server } from 'node:http';
import { createServer } from 'node:http';
import { AggregatorRegistry, Counter, Registry } from 'prom-client';
import type { Config } from '../config.js';
import { CouncilProbe, loadCouncilConfig } from '../council/probe.js';
import { listen } from '../http/listen.js';
import { RateLimiter } from '../http/ratelimit.js';
import type { Logger } from '../log.js';
import { ensureKeys } from '../server.js';
import { type Notice, type SharedWitnessing, asAsk, asNotice } from './messages.js';

/** A process that dies within this long of its start is crash-looping: its restarts back off. */
const STABLE_MS = 10_000;
const MAX_BACKOFF_MS = 10_000;

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

  const metricsText = async (): Promise<string | null> => {
    if (!aggregator) return null;
    try {
      return (await aggregator.clusterMetrics()) + (await registry.metrics());
    } catch {
      return null;
    }
  };

  const onMessage = (index: number, w: Worker, m: unknown) => {
    const a = asAsk(m);
    if (a) {
      const reply = (value: unknown) => {
        if (w.isConnected()) w.send({ svc: 'answer', id: a.id, value });
      };
      if (a.svc === 'take') reply(limiter.take(a.ip, a.group, a.perMinute));
      else if (a.svc === 'council') council.health().then(reply, () => reply(null));
      else metricsText().then(reply, () => reply(null));
      return;
    }
    const n: Notice | null = asNotice(m);
    if (n?.svc === 'ready') {
      urls.add(index);
      if (urls.size === cfg.processes) resolveReady(n.url);
    } else if (n?.svc === 'witnessing' && index === 0) {
      // Only the leader gathers cosignatures; what it publishes, every process serves.
      witnessing = n.state;
      for (const [i, other] of live) if (i !== 0 && other.isConnected()) other.send({ svc: 'witnessing', state: n.state });
    }
  };

  const fork = (index: number) => {
    const w = cluster.fork({ ...env, SVC_PROCESS_INDEX: String(index) });
    live.set(index, w);
    started.set(index, Date.now());
    w.on('message', (m: unknown) => onMessage(index, w, m));
    w.on('online', () => {
      if (witnessing && index !== 0) w.send({ svc: 'witnessing', state: witnessing });
    });
    w.on('exit', (code, signal) => {
      if (live.get(index) === w) live.delete(index);
      if (stopping) {
        if (live.size === 0) finish();
        return;
      }
      restarts++;
      restartCounter.inc();
      const quick = Date.now() - (started.get(index) ?? 0) < STABLE_MS;
      const n = quick ? (failures.get(index) ?? 0) + 1 : 0;
      failures.set(index, n);
      const delay = n === 0 ? 0 : Math.min(MAX_BACKOFF_MS, 250 * 2 ** (n - 1));
      log('process_exit', { process: index, code, signal, restart_in_ms: delay });
      setTimeout(() => !stopping && fork(index), delay).unref();
    });
  };

  let deadline: ReturnType<typeof setTimeout> | undefined;
  const finish = () => {
    clearTimeout(deadline);
    metricsServer?.close();
    log('stopped', { processes: cfg.processes });
    resolveStopped(0);
  };

  for (let i = 0; i < cfg.processes; i++) fork(i);
  log('cluster_started', { processes: cfg.processes, workers_per_process: cfg.workers });

  if (aggregator && cfg.metricsListen) {
    const where = cfg.metricsListen;
    metricsServer = createServer((req, res) => {
      if (req.method !== 'GET' || (req.url ?? '').split('?')[0] !== '/metrics') {
        res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('only GET /metrics here\n');
        return;
      }
      void metricsText().then((t) =>
        t === null
          ? res.writeHead(503).end()
          : res.writeHead(200, { 'content-type': registry.contentType, 'cache-control': 'no-store' }).end(t),
      );
    });
    void listen(metricsServer, where.host, where.port).then((url) => log('metrics_listening', { url: `${url}/metrics` }));
  }

  return {
    ready,
    stopped,
    restarts: () => restarts,
    stop: () => {
      if (stopping) return;
      stopping = true;
      log('shutdown_started', { deadlineMs: cfg.shutdownMs, processes: live.size });
      if (live.size === 0) return finish();
      for (const w of live.values()) if (w.isConnected()) w.send({ svc: 'shutdown' });
      // Each process keeps its own deadline; this one only catches a process that hangs past it.
      deadline = setTimeout(() => {
        for (const w of live.values()) w.process.kill('SIGKILL');
      }, cfg.shutdownMs + 5_000);
    },
  };
}
