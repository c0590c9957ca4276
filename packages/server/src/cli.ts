#!/usr/bin/env node
// svc: serve, keygen, issue, verify, record, ledger, witness; one file per command under cli/.
// Exit codes: 0 ok, 1 does not verify, 2 unreadable input or not a recognised bundle, 3 the ledger
// audit found a problem.
import { CliError } from './cli/common.js';
import { HELP } from './cli/help.js';
import { out } from './cli/io.js';
import { issueCommand } from './cli/issue.js';
import { keygenCommand } from './cli/keygen.js';
import { ledgerCommand } from './cli/ledger-command.js';
import { recordCli, verifyCli } from './cli/read.js';
import { serveCommand } from './cli/serve.js';
import { witnessCommand } from './cli/witness.js';
import { VERSION } from './server.js';

const COMMANDS: Record<string, (args: string[]) => Promise<number>> = {
  serve: serveCommand,
  keygen: keygenCommand,
  issue: issueCommand,
  verify: verifyCli,
  record: recordCli,
  ledger: ledgerCommand,
  witness: witnessCommand,
};

async function main(argv: string[]): Promise<number> {
  const [cmd, ...rest] = argv;
  if (!cmd || cmd === '--help' || cmd === '-h' || cmd === 'help') {
    out(HELP.main!);
    return 0;
  }
  if (cmd === '--version' || cmd === '-v' || cmd === 'version') {
    out(VERSION);
    return 0;
  }
  const run = COMMANDS[cmd];
  if (!run) throw new CliError(`unknown command ${JSON.stringify(cmd)}; see svc --help`, 2);
  if (rest.includes('--help') || rest.includes('-h')) {
    out(HELP[cmd]!);
    return 0;
  }
  return run(rest);
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
