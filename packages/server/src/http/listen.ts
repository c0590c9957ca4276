// Starting an HTTP server the same way everywhere (svc serve, svc witness serve, the metrics
// listener): the deadlines a public server needs, and listening with the URL it ended up on.
import { readFileSync } from 'node:fs';
import { createServer, type Server, type ServerOptions } from 'node:http';
import { createServer as createTlsServer } from 'node:https';
import type { Server as NetServer } from 'node:net';
import { DEFAULT_CONNECTIONS_PER_IP, type Config } from '../config.js';
import type { Logger } from '../log.js';
import { BodyBudget } from './body.js';
import { capConnections, parseOneRequestAtATime } from './connections.js';
import { type AdapterOptions, nodeHandler } from './node.js';
import type { AppRequest, AppResponse } from './types.js';

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

/** Exit code of a server process whose port is taken: its primary says so once, for all of them. */
export const EXIT_ADDRESS_IN_USE = 3;

/** What to tell someone whose port is taken: the port, and how to choose another. */
export function addressInUse(host: string, port: number): string {
  return `port ${port} on ${host} is already in use (another server, or svc serve already running): stop it, or start on another port with PORT=<n> (or --port <n>)`;
}

/** Listen on host:port (0: any free port) and resolve with the server's base URL (https for a TLS listener). */
export async function listen(server: NetServer, host: string, port: number, scheme: 'http' | 'https' = 'http'): Promise<string> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', (e: NodeJS.ErrnoException) =>
      reject(e.code === 'EADDRINUSE' ? Object.assign(new Error(addressInUse(host, port)), { code: 'EADDRINUSE' }) : e),
    );
    server.listen(port, host, () => resolve());
  });
  const addr = server.address();
  const bound = typeof addr === 'object' && addr ? addr.port : port;
  return `${scheme}://${host.includes(':') ? `[${host}]` : host}:${bound}`;
}

/**
 * The one way a public listener is made (the server and the standalone witness): the deadlines
 * above, the node:http adapter with a body budget (its own, or `extra.budget` shared with the
 * process's other listeners), a send deadline, and the cap on connections per client address.
 *
 * @example
 * ```ts
 * const server = publicServer(cfg, app.handle, log, { closing: () => shuttingDown });
 * ```
 */
export function publicServer(
  cfg: Pick<Config, 'bodyMs' | 'bodyBudgetBytes' | 'trustedProxies' | 'sendMs' | 'connectionsPerIp' | 'ipv6Prefix'>,
  handle: (req: AppRequest) => Promise<AppResponse>,
  log: Logger,
  extra: Pick<AdapterOptions, 'closing'> & { tls?: { cert: string; key: string }; budget?: BodyBudget } = {},
): Server {
  const options = serverOptions(cfg);
  // A TLS listener (the private issuing one beyond loopback) is node:https with the same deadlines;
  // it answers through the same adapter, so it is typed as the node:http server it behaves as.
  const make = (extra.tls
    ? (o: ServerOptions, h: Parameters<typeof createServer>[1]) =>
        createTlsServer({ ...o, cert: readFileSync(extra.tls!.cert), key: readFileSync(extra.tls!.key) }, h)
    : createServer) as unknown as typeof createServer;
  const server = make(
    options,
    nodeHandler(handle, {
      trustedProxies: cfg.trustedProxies,
      log,
      budget: extra.budget ?? new BodyBudget(cfg.bodyBudgetBytes),
      ...(cfg.sendMs !== undefined ? { sendMs: cfg.sendMs } : {}),
      ...(extra.closing ? { closing: extra.closing } : {}),
    }),
  );
  parseOneRequestAtATime(server);
  capConnections(server, {
    perIp: cfg.connectionsPerIp ?? DEFAULT_CONNECTIONS_PER_IP,
    trustedProxies: cfg.trustedProxies,
    ...(cfg.ipv6Prefix !== undefined ? { ipv6Prefix: cfg.ipv6Prefix } : {}),
  });
  return server;
}
