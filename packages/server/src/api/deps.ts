// What the route groups are built from. startServer assembles it; tests pass their own.
import type { Names } from '@svc/core';
import type { Config } from '../config.js';
import type { CouncilProbe } from '../council/probe.js';
import type { Metrics } from '../http/metrics.js';
import type { Keyring } from '../keys/keyring.js';
import type { LogApi } from '../tlog/api.js';
import type { Logger } from '../log.js';
import type { Executor, PoolStats } from '../pool/pool.js';
import type { Group } from './spec.js';
import type { Witness } from '../witness/witness.js';
import type { ScittService } from '../scitt/service.js';

/**
 * Everything the HTTP app is built from: configuration, keys, ledger, executor, limiter, metrics, logger. startServer builds them; tests pass their own.
 *
 * @example
 * ```ts
 * const app = createApp(deps satisfies AppDeps);
 * ```
 */
export interface AppDeps {
  cfg: Config;
  names: Names;
  ring: Keyring;
  executor: Executor;
  council: Pick<CouncilProbe, 'health'>;
  ledger: LogApi | null;
  /** The ledger as a SCITT Transparency Service (SCRAPI); absent or null without a ledger. */
  scitt?: ScittService | null;
  log: Logger;
  version: string;
  /** The verifier page served at GET /, when built. */
  page?: () => string | null;
  now?: () => number;
  /** Prometheus metrics (SVC_METRICS); /metrics is 404 without. */
  metrics?: Pick<Metrics, 'request' | 'text'> | null;
  /**
   * The rate limiter's answer (0: allowed, else seconds to wait; null: it could not decide, and the
   * request is refused with 503, never let through). Default: this process's own limiter; a cluster
   * process asks its primary's, so one client has one limit across processes.
   */
  limit?: (key: string, group: Group, perMinute: number) => number | null | Promise<number | null>;
  /** The verification pool's state, for readiness and metrics. */
  poolStats?: () => PoolStats | null;
  /** A tlog-witness served under /api/transparency/witness/ (SVC_WITNESS_SERVE_POLICY). */
  witness?: Witness | null;
  /** Which implementation computes each algorithm, for the CBOM (default: noble for all). */
  cryptoBackends?: Record<string, string>;
}
