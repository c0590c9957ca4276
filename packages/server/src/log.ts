// Structured logs (pino): one JSON object per line with the level, the time, the process id, the
// event's name and its fields. Every line a request causes carries that request's id (`req_id`),
// however deep in the server it is written. Request bodies are never logged.
import { pino, type DestinationStream, type Level } from 'pino';
import { currentRequestId } from './util/request-id.js';

export { requestId, withRequestId } from './util/request-id.js';

/**
 * How the server logs: an event name and its fields, one JSON line per call.
 *
 * @example
 * ```ts
 * const log: Logger = jsonLogger('warn');
 * ```
 */
export type Logger = (event: string, fields?: Record<string, unknown>) => void;

export { LOG_LEVELS, type LogLevel } from './log-levels.js';
import type { LogLevel } from './log-levels.js';

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
  witnessing_round_failed: 'warn',
  witness_refused_inconsistent: 'error',
  witness_saw_larger_log: 'error',
  witness_quorum_missed: 'warn',
  witness_unreachable: 'warn',
  witness_store_error: 'error',
  witness_db_error: 'error',
  council_seat_failed: 'warn',
  council_probe_failed: 'warn',
  dev_keys_generated: 'warn',
  issue_tokens_unsafe: 'error',
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
    const id = currentRequestId();
    p[levelOf(event)](id === undefined ? { event, ...fields } : { event, req_id: id, ...fields });
  };
}
