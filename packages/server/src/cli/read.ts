// `svc verify` and `svc record`: read a bundle (a file or standard input) and judge it offline.
import { CliError } from './common.js';
import { HELP } from './help.js';
import { note, out, parseFor } from './io.js';
import { recordCommand, verifyCommand } from './verify.js';

export async function verifyCli(args: string[]): Promise<number> {
  const parse = <O extends Parameters<typeof parseFor>[2]>(options: O) => parseFor('verify', args, options);
  const { values, positionals } = parse({
    json: { type: 'boolean' },
    keys: { type: 'string' },
    'keys-url': { type: 'string' },
    'allow-unpinned': { type: 'boolean' },
    service: { type: 'string' },
  });
  if (positionals.length !== 1) throw new CliError(`give one file (or - for stdin)\n\n${HELP.verify}`, 2);
  return verifyCommand(positionals[0]!, values, out);
}

export async function recordCli(args: string[]): Promise<number> {
  const parse = <O extends Parameters<typeof parseFor>[2]>(options: O) => parseFor('record', args, options);
  const { values, positionals } = parse({
    org: { type: 'string' },
    keys: { type: 'string' },
    'keys-url': { type: 'string' },
    'allow-unpinned': { type: 'boolean' },
    service: { type: 'string' },
  });
  if (positionals.length !== 1) throw new CliError(`give one file (or - for stdin)\n\n${HELP.record}`, 2);
  return recordCommand(positionals[0]!, values, out, note);
}
