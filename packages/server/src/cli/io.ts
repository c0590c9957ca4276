// The terminal side of svc: results on standard output, notes and progress on standard error (a
// progress line is cleared before anything else is printed), and argument parsing that answers a
// usage error with the command's help.
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { CliError } from './common.js';
import { HELP } from './help.js';
import { io } from './streams.js';

export { io, withIo, type CliIo } from './streams.js';

// A progress line lives on a terminal's stderr; it is cleared before any result is printed, so a
// result never lands on the end of it.
export const clearProgress = () => {
  const s = io();
  if (s.progressShown) s.stderr.write('\r\x1b[K');
  s.progressShown = false;
};
export const out = (s: string) => {
  clearProgress();
  io().stdout.write(`${s}\n`);
};

/**
 * A document as JSON for a terminal: the same JSON value, with every format character (bidi
 * overrides and isolates, zero-width characters, soft hyphens) written as a \u escape, so signed
 * text is never shown reordered or with hidden characters, and the output still parses to the
 * exact same strings.
 */
export function jsonForTerminal(value: unknown): string {
  return JSON.stringify(value, null, 2).replace(/\p{Cf}/gu, (c) =>
    Array.from({ length: c.length }, (_, i) => `\\u${c.charCodeAt(i).toString(16).padStart(4, '0')}`).join(''),
  );
}

export function portFlag(v: string): number {
  const n = /^\d{1,5}$/.test(v) ? Number(v) : NaN;
  if (!(n >= 0 && n <= 65535)) throw new CliError(`--port must be an integer from 0 to 65535, got ${JSON.stringify(v)}`, 2);
  return n;
}
/** A note for the person at the terminal (standard error), beside results on standard output. */
export const note = (s: string) => {
  clearProgress();
  io().stderr.write(`svc: ${s}\n`);
};
export const progress = (s: string) => {
  const session = io();
  if (!session.stderr.isTTY) return;
  session.stderr.write(`\r\x1b[K${s}`);
  session.progressShown = true;
};

/** Parse a command's arguments; anything it does not take is a usage error (exit 2) with its help. */
export function parseFor<O extends NonNullable<ParseArgsConfig['options']>>(
  cmd: string,
  args: string[],
  options: O,
): ReturnType<typeof parseArgs<{ args: string[]; options: O; allowPositionals: true; strict: true }>> {
  try {
    return parseArgs({ args, options, allowPositionals: true, strict: true as const });
  } catch (e) {
    throw new CliError(`${(e as Error).message}\n\n${HELP[cmd]}`, 2);
  }
}
