// Prometheus metrics (prom-client, one registry per server): requests by route and status with
// their latency, rate-limit refusals, counts of the events operators alert on (worker restarts,
// storage process exits, witness refusals), and at scrape time the ledger's size and withheld
// state, witnessing lag and the verification queue.
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { LedgerSth } from '@svc/core/schemas';
import type { Static } from 'typebox';
import type { Logger } from '../log.js';

/**
 * What the metrics read at scrape time, as the layers below give it (the log's head and witnessing,
 * the pool's counts): asked for by shape, so this HTTP module depends on neither.
 */
export interface MetricSources {
  ledger: () => { head(): Promise<Static<typeof LedgerSth>>; witnessing?(): { lagMs: number; cosigned: number } } | null;
  pool: () => { workers: number; busy: number; queued: number } | null;
}

/** Log events that are also counted, by the name of their counter's label. */
const COUNTED = [
  'worker_exit',
  'task_crash',
  'ledger_storage_process_exit',
  'ledger_db_error',
  'ledger_unavailable',
  'witness_refused',
  'witness_refused_inconsistent',
  'witness_quorum_missed',
  'witness_unreachable',
  'checkpoint_witnessed',
  'internal_error',
] as const;

export class Metrics {
  readonly registry = new Registry();
  private readonly requests: Counter<'route' | 'method' | 'status'>;
  private readonly latency: Histogram<'route'>;
  private readonly limited: Counter<'route'>;
  private readonly events: Counter<'event'>;

  constructor(sources: MetricSources) {
    const r = this.registry;
    collectDefaultMetrics({ register: r, prefix: 'svc_' });
    this.requests = new Counter({
      name: 'svc_http_requests_total',
      help: 'HTTP requests by route template, method and status.',
      labelNames: ['route', 'method', 'status'],
      registers: [r],
    });
    this.latency = new Histogram({
      name: 'svc_http_request_duration_seconds',
      help: 'Time to answer, by route template (verification included for /api/v1/verify).',
      labelNames: ['route'],
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10],
      registers: [r],
    });
    this.limited = new Counter({
      name: 'svc_rate_limited_total',
      help: 'Requests refused with 429, by route template.',
      labelNames: ['route'],
      registers: [r],
    });
    this.events = new Counter({
      name: 'svc_events_total',
      help: 'Logged events operators alert on, by event name.',
      labelNames: ['event'],
      registers: [r],
    });
    for (const e of COUNTED) this.events.inc({ event: e }, 0);
    const ledgerState = async () => {
      const l = sources.ledger();
      if (!l) return null;
      try {
        return await l.head();
      } catch {
        return undefined;
      }
    };
    new Gauge({
      name: 'svc_ledger_tree_size',
      // Every process of a cluster sees the same ledger: the aggregate is one view, not a sum.
      aggregator: 'max',
      help: 'Leaves in the ledger (absent when it is off or unreadable).',
      registers: [r],
      async collect() {
        const h = await ledgerState();
        if (h && typeof h.tree_size === 'number') this.set(h.tree_size);
      },
    });
    new Gauge({
      name: 'svc_ledger_withheld',
      // Every process of a cluster sees the same ledger: the aggregate is one view, not a sum.
      aggregator: 'max',
      help: '1 while the signed head is withheld (label: reason), 1 with reason="unavailable" while the ledger cannot be read.',
      labelNames: ['reason'],
      registers: [r],
      async collect() {
        this.reset();
        const h = await ledgerState();
        if (h === null) return;
        for (const reason of ['rollback', 'fork', 'unverifiable', 'unavailable']) this.set({ reason }, 0);
        if (h === undefined) this.set({ reason: 'unavailable' }, 1);
        else if (h.sth_withheld) this.set({ reason: h.sth_withheld }, 1);
      },
    });
    new Gauge({
      name: 'svc_witnessing_lag_seconds',
      // Every process of a cluster sees the same ledger: the aggregate is one view, not a sum.
      aggregator: 'max',
      help: 'How long the latest checkpoint has waited for the witness quorum (0: published).',
      registers: [r],
      collect() {
        const s = sources.ledger()?.witnessing?.();
        if (s) this.set(s.lagMs / 1000);
      },
    });
    new Gauge({
      name: 'svc_witnessing_cosignatures',
      // Every process of a cluster sees the same ledger: the aggregate is one view, not a sum.
      aggregator: 'max',
      help: 'Witness cosignatures the last round gathered.',
      registers: [r],
      collect() {
        const s = sources.ledger()?.witnessing?.();
        if (s) this.set(s.cosigned);
      },
    });
    new Gauge({
      name: 'svc_verify_queue',
      help: 'Verification pool: workers, busy workers and queued tasks.',
      labelNames: ['state'],
      registers: [r],
      collect() {
        const p = sources.pool();
        if (!p) return;
        this.set({ state: 'workers' }, p.workers);
        this.set({ state: 'busy' }, p.busy);
        this.set({ state: 'queued' }, p.queued);
      },
    });
  }

  request(route: string, method: string, status: number, seconds: number): void {
    this.requests.inc({ route, method, status: String(status) });
    this.latency.observe({ route }, seconds);
    if (status === 429) this.limited.inc({ route });
  }

  /** A logger that also counts the events operators alert on. */
  counting(log: Logger): Logger {
    return (event, fields) => {
      if ((COUNTED as readonly string[]).includes(event)) this.events.inc({ event });
      log(event, fields);
    };
  }

  async text(): Promise<{ body: string; contentType: string }> {
    return { body: await this.registry.metrics(), contentType: this.registry.contentType };
  }
}
