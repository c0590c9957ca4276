// Starting an HTTP server the same way everywhere (svc serve, svc witness serve, the metrics
// listener): the deadlines a public server needs, and listening with the URL it ended up on.
import type { Server, ServerOptions } from 'node:http';
import type { Config } from '../config.js';

/**
 * A request must arrive whole within bodyMs (checked every second, not Node's default 30 s): a
 * stalled upload holds its bytes of the body budget no longer than that.
 */
export function serverOptions(cfg: Pick<Config, 'bodyMs'>): ServerOptions {
  return {
    keepAliveTimeout: 5000,
    requestTimeout: Math.max(1000, cfg.bodyMs),
    headersTimeout: Math.max(1000, Math.min(cfg.bodyMs, 60_000)),
    connectionsCheckingInterval: 1000,
  };
}

/** Listen on host:port (0: any free port) and resolve with the server's base URL. */
export async function listen(server: Server, host: string, port: number): Promise<string> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  const addr = server.address();
  const bound = typeof addr === 'object' && addr ? addr.port : port;
  return `http://${host.includes(':') ? `[${host}]` : host}:${bound}`;
}
