// `svc witness serve`: a tlog-witness for the logs of a policy, until SIGTERM or SIGINT.
import { TlogError } from '@svc/core/tlog';
import { loadConfig } from '../config.js';
import { jsonLogger } from '../log.js';
import { startWitness } from '../witness-app.js';
import { CliError, readInput } from './common.js';
import { HELP } from './help.js';
import { io, parseFor, portFlag } from './io.js';

export async function witnessCommand(args: string[]): Promise<number> {
  const parse = <O extends Parameters<typeof parseFor>[2]>(options: O) => parseFor('witness', args, options);
  const { values, positionals } = parse({
    policy: { type: 'string' },
    'data-dir': { type: 'string' },
    'database-url': { type: 'string' },
    port: { type: 'string' },
    host: { type: 'string' },
  });
  if (positionals[0] !== 'serve') throw new CliError(`a witness subcommand is required: serve\n\n${HELP.witness}`, 2);
  if (!values.policy) throw new CliError(`--policy is required\n\n${HELP.witness}`, 2);
  const cfg = loadConfig(io().env, {
    ...(values.port !== undefined ? { port: portFlag(values.port as string) } : {}),
    ...(values.host ? { host: values.host as string } : {}),
    ...(values['data-dir'] ? { dataDir: values['data-dir'] as string } : {}),
    ...(values['database-url'] ? { databaseUrl: values['database-url'] as string } : {}),
  });
  const policyText = readInput(values.policy as string, '--policy');
  let running: Awaited<ReturnType<typeof startWitness>>;
  try {
    running = await startWitness(cfg, policyText, jsonLogger(cfg.log && cfg.logLevel));
  } catch (e) {
    if (e instanceof TlogError) throw new CliError(`--policy ${values.policy}: ${e.message}`, 2);
    throw e;
  }
  const stop = () => void running.close().then(() => process.exit(0));
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
  return new Promise<number>(() => {});
}
