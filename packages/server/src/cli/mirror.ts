// `svc mirror serve`: a tlog-mirror for the logs of a policy, until SIGTERM or SIGINT.
// `svc mirror push`: bring a mirror up to a log's current checkpoint.
import { parseVkey } from '@svc/core/tlog';
import { startMirror } from '../mirror-app.js';
import { pushToMirror } from '../tlog/mirroring.js';
import { CliError } from './common.js';
import { HELP } from './help.js';
import { tileFetcher } from './tlog.js';
import { out, parseFor } from './io.js';
import { serveCosigner } from './witness.js';

export async function mirrorCommand(args: string[]): Promise<number> {
  const parse = <O extends Parameters<typeof parseFor>[2]>(options: O) => parseFor('mirror', args, options);
  const { values, positionals } = parse({
    policy: { type: 'string' },
    'data-dir': { type: 'string' },
    'database-url': { type: 'string' },
    port: { type: 'string' },
    host: { type: 'string' },
    log: { type: 'string' },
    vkey: { type: 'string' },
    mirror: { type: 'string' },
    packages: { type: 'string' },
  });
  if (positionals[0] === 'push') return push(values as Record<string, string | undefined>);
  if (positionals[0] !== 'serve') throw new CliError(`a mirror subcommand is required: serve or push\n\n${HELP.mirror}`, 2);
  return serveCosigner('mirror', values as Record<string, string | undefined>, startMirror);
}

async function push(v: Record<string, string | undefined>): Promise<number> {
  for (const f of ['log', 'vkey', 'mirror'] as const) if (!v[f]) throw new CliError(`--${f} is required\n\n${HELP.mirror}`, 2);
  const packages = v.packages === undefined ? 32 : Number(v.packages);
  if (!Number.isSafeInteger(packages) || packages < 1) throw new CliError('--packages is a whole number of at least 1', 2);
  try {
    const r = await pushToMirror({ read: tileFetcher(v.log!), logKey: parseVkey(v.vkey!.trim()), mirror: v.mirror!, packages });
    out(r.cosignatures.trimEnd());
    return 0;
  } catch (e) {
    if (e instanceof CliError) throw e;
    throw new CliError(`mirror push: ${e instanceof Error ? e.message : String(e)}`, 2);
  }
}
