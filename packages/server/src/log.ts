// Structured logs (pino): one JSON object per line with the level, the time, the process id, the
// event's name and its fields. Every line a request causes carries that request's id (`req_id`),
// however deep in the server it is written. Request bodies are never logged.
import { AsyncLocalStorage } from 'node:async_hooks';
import { pino, type DestinationStream, type Level } from 'pino';

/**
 * How the server logs: an event name and its fields, one JSON line per call.
 *
 * @example
 * ```ts
 * const log: Logger = jsonLogger('warn');
 * ```
 */
export type Logger = (event: string, fields?: Record<string, unknown>) => void;

/**
 * Every level SVC_LOG_LEVEL accepts.
 *
 * @example
 * ```ts
 * if (!LOG_LEVELS.includes(value)) throw new Error(`SVC_LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}`);
 * ```
 */
export const LOG_LEVELS = ['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'] as const;
/**
 * The log levels, least to most severe, and `silent`.
 *
 * @example
 * ```ts
 * const level: LogLevel = (process.env.SVC_LOG_LEVEL as LogLevel) ?? 'info';
 * ```
 */
export type LogLevel = (typeof LOG_LEVELS)[number];

/** Events that are more than information, by level; every other event is `info`. */
const LEVELS: Readonly<Record<string, Level>> = {
  request: 'info',
  internal_error: 'error',
  adapter_error: 'error',
  task_crash: 'error',
  task_timeout: 'warn',
  worker_exit: 'warn',
  process_exit: 'error',
  ledger_unavailable: 'error',
  ledger_db_error: 'error',
  ledger_full_check_failed: 'error',
  ledger_storage_process_exit: 'warn',
  ledger_withheld: 'error',
  witness_refused: 'warn',
  witness_refused_inconsistent: 'error',
  witness_saw_larger_log: 'error',
  witness_quorum_missed: 'warn',
  witness_unreachable: 'warn',
  witness_store_error: 'error',
  witness_db_error: 'error',
  council_seat_failed: 'warn',
  council_probe_failed: 'warn',
  dev_keys_generated: 'warn',
};

/**
 * The level an event is logged at.
 *
 * @example
 * ```ts
 * levelOf('request'); // the level an event is logged at
 * ```
 */
export function levelOf(event: string): Level {
  return LEVELS[event] ?? 'info';
}

const requestScope = new AsyncLocalStorage<string>();

/** Runs `fn` (and everything it starts) as part of the request `id`: their log lines carry it. */
export function withRequestId<T>(id: string, fn: () => T): T {
  return requestScope.run(id, fn);
}

/** A client's X-Request-Id when it is a plain token, so it can be followed through a proxy; else a new one. */
export function requestId(given: string | string[] | undefined): string {
  return typeof given === 'string' && /^[A-Za-z0-9._:-]{1,64}$/.test(given) ? given : crypto.randomUUID();
}

/**
 * A logger at `level` (true: info; false: nothing), writing to standard output, or line by line
 * to `write` (tests read their server's log that way).
 *
 * @example
 * ```ts
 * const log = jsonLogger('info');
 * log('listening', { port: 8080 }); // one JSON line: level, ts, pid, event, fields
 * ```
 */
export function jsonLogger(level: boolean | LogLevel, write?: (line: string) => void): Logger {
  const lvl: LogLevel = level === true ? 'info' : level === false ? 'silent' : level;
  if (lvl === 'silent') return () => {};
  const dest: DestinationStream = write
    ? { write: (s: string) => write(s.endsWith('\n') ? s.slice(0, -1) : s) }
    : pino.destination({ dest: 1, sync: true });
  const p = pino(
    {
      level: lvl,
      base: { pid: process.pid },
      timestamp: () => `,"ts":"${new Date().toISOString()}"`,
      formatters: { level: (label) => ({ level: label }) },
    },
    dest,
  );
  return (event, fields = {}) => {
    const id = requestScope.getStore();
    p[levelOf(event)](id === undefined ? { event, ...fields } : { event, req_id: id, ...fields });
  };
}
