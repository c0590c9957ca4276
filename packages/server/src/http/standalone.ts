// A listener of its own for a cosigner (`svc witness serve`, `svc mirror serve`): its routes at /,
// with the liveness an orchestrator asks for, on svc serve's pipeline and socket settings.
import type { Server } from 'node:http';
import type { Config } from '../config.js';
import type { Logger } from '../log.js';
import { VERSION } from '../version.js';
import { listen, publicServer } from './listen.js';
import { createPipeline, type Mounted } from './pipeline.js';

/**
 * A cosigner's routes served at / on their own listener, with liveness for a load balancer or an
 * orchestrator (`health` says who it is). The pipeline is svc serve's, without CORS or limits.
 * `close` stops listening, cuts open connections, then closes the store.
 */
export async function serveAtRoot(
  cfg: Config,
  routes: Mounted[],
  health: () => Record<string, unknown>,
  log: Logger,
  closeStore: () => unknown,
): Promise<{ server: Server; url: string; close(): Promise<void> }> {
  const { handle } = createPipeline({
    routes: [
      ...routes,
      {
        method: 'GET',
        path: '/healthz',
        group: 'none',
        cache: 'no-store',
        run: async () => ({ status: 200, body: { ok: true, version: VERSION, ...health() } }),
      },
    ],
    log,
  });
  const server = publicServer(cfg, handle, log);
  const url = await listen(server, cfg.host, cfg.port);
  return {
    server,
    url,
    close: async () => {
      await new Promise<void>((r) => {
        server.close(() => r());
        server.closeAllConnections();
      });
      await closeStore();
    },
  };
}
