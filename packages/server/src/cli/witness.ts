// `svc witness serve`: a tlog-witness for the logs of a policy, until SIGTERM or SIGINT.
import { TlogError } from '@svc/core/tlog';
import { loadConfig, type Config } from '../config.js';
import { jsonLogger, type Logger } from '../log.js';
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
  return serveCosigner('witness', values as Record<string, string | undefined>, startWitness);
}

/**
 * `svc witness serve` and `svc mirror serve`: the configuration from the flags and the environment,
 * the policy read, the listener started, and a clean close on SIGTERM or SIGINT; never resolves.
 */
export async function serveCosigner(
  command: 'witness' | 'mirror',
  values: Record<string, string | undefined>,
  start: (cfg: Config, policyText: string, log: Logger) => Promise<{ close(): Promise<void> }>,
): Promise<number> {
  if (!values.policy) throw new CliError(`--policy is required\n\n${HELP[command]}`, 2);
  const cfg = loadConfig(io().env, {
    ...(values.port !== undefined ? { port: portFlag(values.port) } : {}),
    ...(values.host ? { host: values.host } : {}),
    ...(values['data-dir'] ? { dataDir: values['data-dir'] } : {}),
    ...(values['database-url'] ? { databaseUrl: values['database-url'] } : {}),
  });
  const policyText = readInput(values.policy, '--policy');
  let running: { close(): Promise<void> };
  try {
    running = await start(cfg, policyText, jsonLogger(cfg.log && cfg.logLevel));
  } catch (e) {
    if (e instanceof TlogError) throw new CliError(`--policy ${values.policy}: ${e.message}`, 2);
    throw e;
  }
  const stop = () => void running.close().then(() => process.exit(0));
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
  return new Promise<number>(() => {});
}
