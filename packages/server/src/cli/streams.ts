// Where a command reads and writes: the process's own streams and environment, or those a caller
// of runCli hands in (a program, or a test, running svc in its own process, several at once).
import { AsyncLocalStorage } from 'node:async_hooks';
import { readFileSync } from 'node:fs';
import type { Readable, Writable } from 'node:stream';

/** A command's standard streams and environment. */
export interface CliIo {
  stdout: Writable;
  stderr: Writable & { isTTY?: boolean };
  stdin: Readable;
  env: NodeJS.ProcessEnv;
  /** All of standard input at once (`-` for a file). */
  readStdin(): string;
}
type Session = CliIo & { progressShown: boolean };

const sessions = new AsyncLocalStorage<Session>();
let processSession: Session | undefined;
/** The running command's streams: its runCli caller's, or the process's. */
export function io(): Session {
  const own = sessions.getStore();
  if (own) return own;
  processSession ??= {
    stdout: process.stdout,
    stderr: process.stderr,
    stdin: process.stdin,
    env: process.env,
    readStdin: () => readFileSync(0, 'utf8'),
    progressShown: false,
  };
  return processSession;
}
/** Runs `f` with `streams` as its io(), whatever else runs at the same time. */
export const withIo = <T>(streams: CliIo, f: () => Promise<T>): Promise<T> => sessions.run({ ...streams, progressShown: false }, f);
