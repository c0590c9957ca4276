// `svc serve`: the reference server, until SIGTERM or SIGINT (each idempotent).
import { loadConfig } from '../config.js';
import { startServer } from '../server.js';
import { parseFor, portFlag } from './io.js';

export async function serveCommand(args: string[]): Promise<number> {
  const parse = <O extends Parameters<typeof parseFor>[2]>(options: O) => parseFor('serve', args, options);
  const { values } = parse({
    port: { type: 'string' },
    host: { type: 'string' },
    'data-dir': { type: 'string' },
    'database-url': { type: 'string' },
  });
  const cfg = loadConfig(process.env, {
    ...(values['database-url'] ? { databaseUrl: values['database-url'] as string } : {}),
    ...(values.port !== undefined ? { port: portFlag(values.port as string) } : {}),
    ...(values.host ? { host: values.host as string } : {}),
    ...(values['data-dir'] ? { dataDir: values['data-dir'] as string } : {}),
  });
  const running = await startServer(cfg);
  // Idempotent, and still listening after the first: Ctrl-C under npm start delivers SIGINT twice
  // (from the terminal and from the launcher), and the second must not cut the graceful shutdown.
  const stop = () => void running.close().then(() => process.exit(0));
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
  return new Promise<number>(() => {});
}
