// Configuration from the environment (and CLI flags layered on top by the CLI). Every value has an
// embedded default so `npm start` works on a fresh clone with no external service.
import { existsSync, statSync } from 'node:fs';
import { cpus } from 'node:os';
import { resolve } from 'node:path';
import { DEFAULT_SERVICE, isValidServiceName } from '@svc/core';
import { utf8 } from '@svc/core/primitives';
import { isKeyName } from '@svc/core/tlog';
import { LOG_LEVELS, type LogLevel } from './log-levels.js';

/** The default prefix an IPv6 client is limited by: one customer site (RFC 6177) holds a /64 at least. */
export const DEFAULT_IPV6_PREFIX = 64;
/** Open connections per client address and server process, unless configured. */
export const DEFAULT_CONNECTIONS_PER_IP = 64;

/** An origin is also the log keys' name: a key name of at most 255 bytes (subtree/v1 encodes it in one). */
export function isLogOrigin(s: string): boolean {
  return isKeyName(s) && utf8(s).length <= 255;
}

/**
 * The private issuing listener's settings.
 *
 * @example
 * ```ts
 * const issue: IssueListenerConfig = { host: '127.0.0.1', port: 8443, tokens: './data/issue-tokens', perMinute: 600, upstreamMs: 120_000, signers: 1 };
 * ```
 */
export interface IssueListenerConfig {
  host: string;
  port: number;
  /** The file of named, hashed bearer tokens (SVC_ISSUE_TOKENS; default `<dataDir>/issue-tokens`). */
  tokens: string;
  /** PEM files of the listener's certificate chain and key; required beyond loopback. */
  tls?: { cert: string; key: string };
  /** Answers per minute per token (SVC_RATE_ISSUE; a batch spends one per answer; 0: no limit). */
  perMinute: number;
  /** How long the OpenAI-compatible front waits for an upstream model (SVC_UPSTREAM_SECONDS). */
  upstreamMs: number;
  /** Threads that sign issued answers, per process (SVC_ISSUE_SIGNERS; 0: the event loop's own). */
  signers: number;
}

// WF-ISSUE-LISTEN
/** Whether a listener address reaches only this machine. */
export function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}

/**
 * Requests per minute per client IP, per rate group.
 *
 * @example
 * ```ts
 * const rate: RateLimits = { verify: 60, read: 600, modelKeys: 60, tiles: 6000 };
 * const cfg = loadConfig(process.env, { rate });
 * ```
 */
export interface RateLimits {
  /** Requests per minute per client IP; 0 disables the limit. */
  verify: number;
  read: number;
  modelKeys: number;
  /** Tiles, entry bundles and checkpoints: mirrors and monitors read many at once. */
  tiles: number;
  /** GET /metrics (a Prometheus server scrapes a few times a minute); absent: not limited. */
  metrics?: number;
}

/**
 * The server configuration (see `svc serve --help` and the README's configuration table).
 *
 * @example
 * ```ts
 * const cfg: Config = loadConfig(process.env, { port: 0 });
 * ```
 */
export interface Config {
  port: number;
  host: string;
  dataDir: string;
  service: string;
  rate: RateLimits;
  /** Addresses of reverse proxies whose X-Forwarded-For is believed. Empty: use the socket. */
  trustedProxies: string[];
  /** IPv6 clients are rate limited per this many leading bits (SVC_IPV6_PREFIX, 32 to 128; default 64). */
  ipv6Prefix?: number;
  /** Open connections one client address may hold per server process (SVC_CONNECTIONS_PER_IP; 0: no cap). */
  connectionsPerIp?: number;
  /** An answer not taken by the client within this long (ms) closes its connection (SVC_SEND_SECONDS). */
  sendMs?: number;
  ledger: boolean;
  /** The checkpoint origin line (and the log keys' name); default kept in the keys folder (keys/log-origin). */
  logOrigin?: string;
  /** Whether checkpoints carry the Ed25519 line (classical, for the public witness network). */
  logEd25519: boolean;
  /** Prometheus metrics at /metrics. */
  metrics: boolean;
  /** `host:port` of a listener of its own for /metrics (kept off the public port); unset: the main port. */
  metricsListen?: { host: string; port: number };
  /**
   * The private issuing listener (SVC_ISSUE_LISTEN): off unless set, never on the public port.
   * Plain HTTP on loopback only; beyond it TLS (SVC_ISSUE_TLS_CERT, SVC_ISSUE_TLS_KEY) or no start.
   */
  issue?: IssueListenerConfig;
  /** A c2sp.org/tlog-policy file: the witnesses asked to cosign each checkpoint, and the quorum published checkpoints need. */
  witnessPolicy?: string;
  /** A c2sp.org/tlog-policy file whose logs this server witnesses, under /api/transparency/witness/. */
  witnessServePolicy?: string;
  /** A JWK Set (JSON) or COSE_KeySet (CBOR) of issuers whose SCITT statements POST /entries registers, beside the service's own answer keys. */
  scittIssuers?: string;
  /** How long the log waits for each witness's answer (ms). */
  witnessTimeoutMs: number;
  /** PostgreSQL URL of a ledger shared by several instances; absent: the SQLite file in dataDir. */
  databaseUrl?: string;
  /** How long appends gather before one signed head seals them (ms). */
  ledgerBatchMs: number;
  /** Between full rechecks of the ledger by a running server (ms). */
  ledgerAuditMs: number;
  /** The share of one core's time the background full check of the ledger may take (0.01 to 1). */
  ledgerCheckShare: number;
  /** Path of the council seats file; default `<dataDir>/council.json`. */
  councilFile: string;
  /** Server processes sharing the port (node:cluster); 1: this process serves alone. */
  processes: number;
  /** Worker threads for CPU-bound verification, per process; default the cores divided among the processes. */
  workers: number;
  /** Enables the SLH-DSA diversity signature on issued receipts. */
  slhDiversity: boolean;
  /** Whether the model-plane (bridge) keys are published and used. */
  bridge: boolean;
  log: boolean;
  /** The least level written (SVC_LOG_LEVEL): trace, debug, info, warn, error, fatal or silent. */
  logLevel: LogLevel;
  /** Graceful shutdown deadline: requests still open after it are cut. */
  shutdownMs: number;
  /** A request's headers and body must arrive within this long (ms), else 408 and the connection closes. */
  bodyMs: number;
  /** Bytes of request bodies held in memory across all connections of the whole server (each of `processes` holds an equal share); past it uploads get 503. */
  bodyBudgetBytes: number;
  /** Verification queue bounds and the per-task deadline (see pool/pool.ts for defaults). */
  pool: { maxQueuedCost?: number; taskTimeoutMs?: number; inlineMaxCost?: number };
}

function int(v: string | undefined, d: number, name: string): number {
  if (v === undefined || v === '') return d;
  const n = Number(v);
  if (!Number.isSafeInteger(n) || n < 0) throw new Error(`${name} must be a non-negative integer, got ${JSON.stringify(v)}`);
  return n;
}

function logLevel(v: string | undefined): LogLevel {
  if (v === undefined || v === '') return 'info';
  if ((LOG_LEVELS as readonly string[]).includes(v)) return v as LogLevel;
  throw new Error(`SVC_LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}, got ${JSON.stringify(v)}`);
}

function seconds(v: string | undefined, d: number, name: string): number {
  if (v === undefined || v === '') return d;
  const n = Number(v);
  if (!/^\d+(\.\d+)?$/.test(v.trim()) || !Number.isFinite(n) || n > 86_400)
    throw new Error(`${name} must be a number of seconds from 0 to 86400, got ${JSON.stringify(v)}`);
  return Math.round(n * 1000);
}

/** A share of the time, from 0.01 (a hundredth) to 1 (all of it). */
function share(v: string | undefined, d: number, name: string): number {
  if (v === undefined || v === '') return d;
  const n = Number(v);
  if (!/^\d+(\.\d+)?$/.test(v.trim()) || !(n >= 0.01 && n <= 1))
    throw new Error(`${name} must be a share from 0.01 to 1 (0.1: a tenth of one core), got ${JSON.stringify(v)}`);
  return n;
}

/** `host:port` (IPv6 in brackets), port 0 to 65535. */
function hostPort(v: string, name: string): { host: string; port: number } {
  const m = /^(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]+):(\d{1,5})$/.exec(v.trim());
  const port = m ? Number(m[2]) : Number.NaN;
  if (!m || !(port >= 0 && port <= 65535)) throw new Error(`${name} must be host:port (e.g. 127.0.0.1:9464), got ${JSON.stringify(v)}`);
  return { host: m[1]!.replace(/^\[|\]$/g, ''), port };
}

const TRUE = ['1', 'true', 'on', 'yes'];
const FALSE = ['0', 'false', 'off', 'no'];

/** A boolean setting; anything but the listed words is refused (a typo must not mean "on"). */
function bool(v: string | undefined, d: boolean, name: string): boolean {
  if (v === undefined || v === '') return d;
  const w = v.trim().toLowerCase();
  if (TRUE.includes(w)) return true;
  if (FALSE.includes(w)) return false;
  throw new Error(`${name} must be one of ${[...TRUE, ...FALSE].join(', ')}, got ${JSON.stringify(v)}`);
}

/** Checked after flags are layered on, before anything is created on disk. */
function validate(c: Config): Config {
  if (!Number.isSafeInteger(c.port) || c.port < 0 || c.port > 65535)
    throw new Error(`the port must be an integer from 0 to 65535, got ${JSON.stringify(c.port)}`);
  if (!c.host || /\s/.test(c.host)) throw new Error(`the host must be an address, got ${JSON.stringify(c.host)}`);
  if (!Number.isSafeInteger(c.processes) || c.processes < 1 || c.processes > 256)
    throw new Error(`SVC_PROCESSES must be an integer from 1 to 256, got ${JSON.stringify(c.processes)}`);
  if (!Number.isSafeInteger(c.workers) || c.workers > 1024)
    throw new Error(`SVC_WORKERS must be an integer from 0 to 1024, got ${JSON.stringify(c.workers)}`);
  if (c.databaseUrl !== undefined) {
    let u: URL | null = null;
    try {
      u = new URL(c.databaseUrl);
    } catch {
      // reported below
    }
    if (!u || !['postgres:', 'postgresql:'].includes(u.protocol))
      throw new Error('SVC_DATABASE_URL must be a postgres:// or postgresql:// URL');
  }
  if (c.logOrigin !== undefined && !isLogOrigin(c.logOrigin))
    throw new Error(
      `SVC_LOG_ORIGIN must be 1 to 255 bytes with no spaces, '+' or control characters (e.g. example.com/log), got ${JSON.stringify(c.logOrigin)}`,
    );
  if (c.ipv6Prefix !== undefined && !(Number.isSafeInteger(c.ipv6Prefix) && c.ipv6Prefix >= 32 && c.ipv6Prefix <= 128))
    throw new Error(`SVC_IPV6_PREFIX must be an integer from 32 to 128, got ${JSON.stringify(c.ipv6Prefix)}`);
  if (c.issue) {
    if (c.issue.tls) {
      // Each named for what is wrong with it: a half configuration must not read the folder it ran in.
      for (const [name, file] of [
        ['SVC_ISSUE_TLS_CERT', c.issue.tls.cert],
        ['SVC_ISSUE_TLS_KEY', c.issue.tls.key],
      ] as const) {
        if (!file) throw new Error(`${name} is not set: SVC_ISSUE_TLS_CERT and SVC_ISSUE_TLS_KEY are set together (PEM files)`);
        if (!existsSync(file) || !statSync(file).isFile()) throw new Error(`${name} must name a PEM file that exists, got ${file}`);
      }
    }
    // Its bearer tokens would otherwise cross a network in the clear.
    if (!c.issue.tls && !isLoopback(c.issue.host))
      throw new Error(
        `SVC_ISSUE_LISTEN ${c.issue.host}:${c.issue.port} reaches beyond this machine: serve it with TLS (SVC_ISSUE_TLS_CERT and SVC_ISSUE_TLS_KEY) or listen on 127.0.0.1`,
      );
    if (c.issue.host === c.host && c.issue.port === c.port && c.port !== 0)
      throw new Error('SVC_ISSUE_LISTEN must not be the public port: the issuing API never shares a listener with the public one');
  }
  for (const p of c.trustedProxies)
    if (!/^[0-9a-fA-F.:]+$/.test(p)) throw new Error(`SVC_TRUSTED_PROXIES must list IP addresses, got ${JSON.stringify(p)}`);
  return c;
}

/**
 * The server configuration from SVC_* environment variables, with overrides; throws on an invalid setting.
 *
 * @example
 * ```ts
 * const cfg = loadConfig({ PORT: '8080', SVC_DATA_DIR: './data' });
 * const running = await startServer(cfg);
 * ```
 */
export function loadConfig(env: NodeJS.ProcessEnv = process.env, overrides: Partial<Config> = {}): Config {
  const service = env.SVC_SERVICE_NAME ?? DEFAULT_SERVICE;
  if (!isValidServiceName(service)) throw new Error(`SVC_SERVICE_NAME must match [a-z0-9][a-z0-9-]*, got ${JSON.stringify(service)}`);
  const dataDir = resolve(overrides.dataDir ?? env.SVC_DATA_DIR ?? './data');
  const cfg: Config = {
    port: int(env.PORT, 8080, 'PORT'),
    host: env.HOST || '127.0.0.1',
    dataDir,
    service,
    rate: {
      verify: int(env.SVC_RATE_VERIFY, 40, 'SVC_RATE_VERIFY'),
      read: int(env.SVC_RATE_READ, 120, 'SVC_RATE_READ'),
      modelKeys: int(env.SVC_RATE_MODEL_KEYS, 120, 'SVC_RATE_MODEL_KEYS'),
      tiles: int(env.SVC_RATE_TILES, 6000, 'SVC_RATE_TILES'),
      metrics: int(env.SVC_RATE_METRICS, 60, 'SVC_RATE_METRICS'),
    },
    trustedProxies: (env.SVC_TRUSTED_PROXIES ?? '')
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean),
    ipv6Prefix: int(env.SVC_IPV6_PREFIX, DEFAULT_IPV6_PREFIX, 'SVC_IPV6_PREFIX'),
    connectionsPerIp: int(env.SVC_CONNECTIONS_PER_IP, DEFAULT_CONNECTIONS_PER_IP, 'SVC_CONNECTIONS_PER_IP'),
    sendMs: seconds(env.SVC_SEND_SECONDS, 10_000, 'SVC_SEND_SECONDS'),
    ledger: bool(env.SVC_LEDGER, true, 'SVC_LEDGER'),
    ...(env.SVC_LOG_ORIGIN ? { logOrigin: env.SVC_LOG_ORIGIN } : {}),
    logEd25519: bool(env.SVC_LOG_ED25519, true, 'SVC_LOG_ED25519'),
    metrics: bool(env.SVC_METRICS, true, 'SVC_METRICS'),
    ...(env.SVC_METRICS_LISTEN ? { metricsListen: hostPort(env.SVC_METRICS_LISTEN, 'SVC_METRICS_LISTEN') } : {}),
    ...(env.SVC_ISSUE_LISTEN
      ? {
          issue: {
            ...hostPort(env.SVC_ISSUE_LISTEN, 'SVC_ISSUE_LISTEN'),
            tokens: resolve(env.SVC_ISSUE_TOKENS ?? resolve(dataDir, 'issue-tokens')),
            ...(env.SVC_ISSUE_TLS_CERT || env.SVC_ISSUE_TLS_KEY
              ? {
                  tls: {
                    cert: env.SVC_ISSUE_TLS_CERT ? resolve(env.SVC_ISSUE_TLS_CERT) : '',
                    key: env.SVC_ISSUE_TLS_KEY ? resolve(env.SVC_ISSUE_TLS_KEY) : '',
                  },
                }
              : {}),
            perMinute: int(env.SVC_RATE_ISSUE, 600, 'SVC_RATE_ISSUE'),
            upstreamMs: seconds(env.SVC_UPSTREAM_SECONDS, 120_000, 'SVC_UPSTREAM_SECONDS'),
            signers: int(env.SVC_ISSUE_SIGNERS, 1, 'SVC_ISSUE_SIGNERS'),
          },
        }
      : {}),
    ...(env.SVC_WITNESS_POLICY ? { witnessPolicy: resolve(env.SVC_WITNESS_POLICY) } : {}),
    ...(env.SVC_WITNESS_SERVE_POLICY ? { witnessServePolicy: resolve(env.SVC_WITNESS_SERVE_POLICY) } : {}),
    ...(env.SVC_SCITT_ISSUERS ? { scittIssuers: resolve(env.SVC_SCITT_ISSUERS) } : {}),
    witnessTimeoutMs: seconds(env.SVC_WITNESS_TIMEOUT_SECONDS, 5_000, 'SVC_WITNESS_TIMEOUT_SECONDS'),
    ...(env.SVC_DATABASE_URL ? { databaseUrl: env.SVC_DATABASE_URL } : {}),
    ledgerBatchMs: seconds(env.SVC_LEDGER_BATCH_SECONDS, 1_000, 'SVC_LEDGER_BATCH_SECONDS'),
    ledgerAuditMs: seconds(env.SVC_LEDGER_AUDIT_SECONDS, 300_000, 'SVC_LEDGER_AUDIT_SECONDS'),
    ledgerCheckShare: share(env.SVC_LEDGER_CHECK_SHARE, 0.1, 'SVC_LEDGER_CHECK_SHARE'),
    councilFile: env.SVC_COUNCIL_FILE ?? resolve(dataDir, 'council.json'),
    processes: int(env.SVC_PROCESSES, Math.max(1, cpus().length), 'SVC_PROCESSES'),
    workers: int(
      env.SVC_WORKERS,
      Math.max(1, Math.ceil(cpus().length / Math.max(1, int(env.SVC_PROCESSES, cpus().length, 'SVC_PROCESSES')))),
      'SVC_WORKERS',
    ),
    slhDiversity: bool(env.SVC_SLH_DIVERSITY, false, 'SVC_SLH_DIVERSITY'),
    bridge: bool(env.SVC_BRIDGE, true, 'SVC_BRIDGE'),
    log: bool(env.SVC_LOG, true, 'SVC_LOG'),
    logLevel: logLevel(env.SVC_LOG_LEVEL),
    shutdownMs: seconds(env.SVC_SHUTDOWN_SECONDS, 10_000, 'SVC_SHUTDOWN_SECONDS'),
    bodyMs: seconds(env.SVC_BODY_SECONDS, 10_000, 'SVC_BODY_SECONDS'),
    bodyBudgetBytes: int(env.SVC_BODY_BUDGET_MB, 256, 'SVC_BODY_BUDGET_MB') * 1024 * 1024,
    pool: {
      ...(env.SVC_QUEUE_SIGNATURES ? { maxQueuedCost: int(env.SVC_QUEUE_SIGNATURES, 0, 'SVC_QUEUE_SIGNATURES') } : {}),
      ...(env.SVC_INLINE_SIGNATURES ? { inlineMaxCost: int(env.SVC_INLINE_SIGNATURES, 0, 'SVC_INLINE_SIGNATURES') } : {}),
      ...(env.SVC_TASK_TIMEOUT_SECONDS ? { taskTimeoutMs: seconds(env.SVC_TASK_TIMEOUT_SECONDS, 30_000, 'SVC_TASK_TIMEOUT_SECONDS') } : {}),
    },
  };
  return validate({ ...cfg, ...overrides, dataDir });
}
