// svc as tests run it. runSvc: the command line in this process (runCli with its own streams and
// environment), where what is tested is what a command does; a node process costs a second of CPU
// to start and load, and the suite ran hundreds. runSvcProcess: the built binary in its own
// process, asynchronously (a server under test may run in this process), where the process is the
// subject: exit codes as a shell sees them, signals, a terminal, a server that keeps running.
import { spawn } from 'node:child_process';
import { PassThrough, Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { runCli } from '../../src/internal.js';

export const CLI = fileURLToPath(new URL('../../dist/cli.js', import.meta.url));

type Ran = { code: number | null; out: string; err: string };
type Options = { input?: string; env?: NodeJS.ProcessEnv };

export async function runSvc(args: string[], opts: Options = {}): Promise<Ran> {
  const collect = () => {
    const s = new PassThrough();
    let text = '';
    s.setEncoding('utf8').on('data', (c: string) => (text += c));
    const ended = new Promise<string>((r) => s.on('end', () => r(text)));
    return { s, text: () => (s.end(), ended) };
  };
  const stdout = collect();
  const stderr = collect();
  const input = opts.input ?? '';
  const code = await runCli(args, {
    stdout: stdout.s,
    stderr: stderr.s,
    stdin: Readable.from([input]),
    env: { ...process.env, ...opts.env },
    readStdin: () => input,
  });
  return { code, out: await stdout.text(), err: await stderr.text() };
}

export function runSvcProcess(args: string[], opts: Options = {}): Promise<Ran> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [CLI, ...args], { env: { ...process.env, ...opts.env } });
    let out = '';
    let err = '';
    child.stdout.setEncoding('utf8').on('data', (c) => (out += c));
    child.stderr.setEncoding('utf8').on('data', (c) => (err += c));
    child.on('close', (code) => resolve({ code, out, err }));
    child.stdin.end(opts.input ?? '');
  });
}
