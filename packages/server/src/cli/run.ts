// svc's commands behind one function: the binary (cli.ts) runs it on the process's streams and
// exits with its code; a program or a test may run it on its own streams (io.ts's CliIo).
// Exit codes (one table, docs in the README and `svc --help`): 0 ok; 1 does not verify; 2 usage,
// unreadable input or not a recognised bundle; 3 the ledger audit found a problem; 4 it verifies,
// but the keys pinned with --keys or --keys-url do not recognise its signer (--allow-unpinned: 0).
import { CliError } from './common.js';
import { HELP } from './help.js';
import { io, out, withIo, type CliIo } from './io.js';
import { VERSION } from '../version.js';

type Command = (args: string[]) => Promise<number>;

// Each command loads only what it uses: `svc verify` need not load the server, SQLite or pg.
const COMMANDS: Record<string, () => Promise<Command>> = {
  serve: async () => (await import('./serve.js')).serveCommand,
  keygen: async () => (await import('./keygen.js')).keygenCommand,
  issue: async () => (await import('./issue.js')).issueCommand,
  verify: async () => (await import('./read.js')).verifyCli,
  record: async () => (await import('./read.js')).recordCli,
  ledger: async () => (await import('./ledger-command.js')).ledgerCommand,
  witness: async () => (await import('./witness.js')).witnessCommand,
  mirror: async () => (await import('./mirror.js')).mirrorCommand,
  token: async () => (await import('./token.js')).tokenCommand,
};

async function main(argv: string[]): Promise<number> {
  const [cmd, ...rest] = argv;
  if (cmd === '--help' || cmd === '-h' || cmd === 'help') {
    out(HELP.main!);
    return 0;
  }
  // No command is a usage error: a script that forgot its command must not pass.
  if (!cmd) throw new CliError(`a command is needed\n\n${HELP.main!}`, 2);
  if (cmd === '--version' || cmd === '-v' || cmd === 'version') {
    out(VERSION);
    return 0;
  }
  const load = Object.hasOwn(COMMANDS, cmd) ? COMMANDS[cmd] : undefined;
  if (!load) throw new CliError(`unknown command ${JSON.stringify(cmd)}; see svc --help`, 2);
  if (rest.includes('--help') || rest.includes('-h')) {
    out(HELP[cmd]!);
    return 0;
  }
  return (await load())(rest);
}

/** Runs one svc command line; resolves to its exit code, every error written to its stderr. */
export function runCli(argv: string[], streams?: CliIo): Promise<number> {
  const run = async () => {
    try {
      return await main(argv);
    } catch (e) {
      const err = io().stderr;
      if (e instanceof CliError) {
        const nl = e.message.indexOf('\n');
        err.write(`svc: ${nl < 0 ? e.message : e.message.slice(0, nl)}\n${nl < 0 ? '' : `${e.message.slice(nl + 1)}\n`}`);
        return e.exitCode;
      }
      err.write(`svc: ${e instanceof Error ? e.message : String(e)}\n`);
      return 2;
    }
  };
  return streams ? withIo(streams, run) : run();
}
