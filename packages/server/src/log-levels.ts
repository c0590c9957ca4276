// The log levels, apart from the logger, so reading the configuration does not load pino.
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
