// `svc serve`: the reference server, until SIGTERM or SIGINT (each idempotent). With
// SVC_PROCESSES > 1 this process becomes the cluster's primary and forks the server processes.
import cluster from 'node:cluster';
import { loadConfig } from '../config.js';
import { jsonLogger } from '../log.js';
import { EXIT_ADDRESS_IN_USE } from '../http/listen.js';
import { sqliteMissing } from '../ledger/sqlite/driver.js';
import { CliError } from './common.js';
import { io, parseFor, portFlag } from './io.js';

// Each role loads only its own modules: the primary never serves, so it does not map the server's
// (the HTTP pipeline, the routes, the pool, SQLite's driver); a server process never supervises.

export async function serveCommand(args: string[]): Promise<number> {
  const parse = <O extends Parameters<typeof parseFor>[2]>(options: O) => parseFor('serve', args, options);
  const { values } = parse({
    port: { type: 'string' },
    host: { type: 'string' },
    'data-dir': { type: 'string' },
    'database-url': { type: 'string' },
  });
  const cfg = loadConfig(io().env, {
    ...(values['database-url'] ? { databaseUrl: values['database-url'] as string } : {}),
    ...(values.port !== undefined ? { port: portFlag(values.port as string) } : {}),
    ...(values.host ? { host: values.host as string } : {}),
    ...(values['data-dir'] ? { dataDir: values['data-dir'] as string } : {}),
  });
  if (cluster.isPrimary && cfg.ledger && !cfg.databaseUrl) {
    const missing = sqliteMissing();
    if (missing) throw new CliError(missing, 2);
  }
  if (cfg.processes > 1 && cluster.isPrimary) {
    const { startPrimary } = await import('../cluster/primary.js');
    const primary = startPrimary(cfg, jsonLogger(cfg.log && cfg.logLevel));
    const stop = () => primary.stop();
    process.on('SIGTERM', stop);
    process.on('SIGINT', stop);
    return primary.stopped;
  }
  if (cluster.isWorker) {
    const { clusterLink } = await import('../cluster/link.js');
    // A cluster process stops when its primary says so: a terminal's Ctrl-C or systemd's SIGTERM
    // reaches every process of the group, and only the primary may decide that nothing restarts.
    const link = clusterLink(Number(process.env.SVC_PROCESS_INDEX ?? 0));
    process.on('SIGTERM', () => {});
    process.on('SIGINT', () => {});
    const { startProcess } = await import('../server.js');
    // A taken port fails every process alike: each exits quietly with its own code, and the
    // primary says it once.
    const running = await startProcess(cfg, { cluster: link }).catch((e: NodeJS.ErrnoException) => {
      if (e.code === 'EADDRINUSE') process.exit(EXIT_ADDRESS_IN_USE);
      throw e;
    });
    link.onShutdown(() => void running.close().then(() => process.exit(0)));
    link.ready(running.url);
    return new Promise<number>(() => {});
  }
  const { startServer } = await import('../server.js');
  const running = await startServer(cfg).catch((e: NodeJS.ErrnoException) => {
    throw e.code === 'EADDRINUSE' ? new CliError(e.message, 1) : e;
  });
  // Idempotent, and still listening after the first: Ctrl-C under npm start delivers SIGINT twice
  // (from the terminal and from the launcher), and the second must not cut the graceful shutdown.
  const stop = () => void running.close().then(() => process.exit(0));
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
  return new Promise<number>(() => {});
}
