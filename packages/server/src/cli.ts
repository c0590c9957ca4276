#!/usr/bin/env node
// svc: serve, keygen, issue, verify, record, ledger, witness; one file per command under cli/.
// Exit codes (one table, docs in the README and `svc --help`): 0 ok; 1 does not verify; 2 usage,
// unreadable input or not a recognised bundle; 3 the ledger audit found a problem; 4 it verifies,
// but the keys pinned with --keys or --keys-url do not recognise its signer (--allow-unpinned: 0).
import { CliError } from './cli/common.js';
import { HELP } from './cli/help.js';
import { out } from './cli/io.js';
import { VERSION } from './version.js';

type Command = (args: string[]) => Promise<number>;

// Each command loads only what it uses: `svc verify` need not load the server, SQLite or pg.
const COMMANDS: Record<string, () => Promise<Command>> = {
  serve: async () => (await import('./cli/serve.js')).serveCommand,
  keygen: async () => (await import('./cli/keygen.js')).keygenCommand,
  issue: async () => (await import('./cli/issue.js')).issueCommand,
  verify: async () => (await import('./cli/read.js')).verifyCli,
  record: async () => (await import('./cli/read.js')).recordCli,
  ledger: async () => (await import('./cli/ledger-command.js')).ledgerCommand,
  witness: async () => (await import('./cli/witness.js')).witnessCommand,
  token: async () => (await import('./cli/token.js')).tokenCommand,
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

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (e: unknown) => {
    if (e instanceof CliError) {
      process.stderr.write(
        `svc: ${e.message.split('\n')[0]}\n${e.message.includes('\n') ? `${e.message.slice(e.message.indexOf('\n') + 1)}\n` : ''}`,
      );
      process.exit(e.exitCode);
    }
    process.stderr.write(`svc: ${e instanceof Error ? e.message : String(e)}\n`);
    process.exit(2);
  },
);
