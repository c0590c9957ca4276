// Metrics on a listener of their own (SVC_METRICS_LISTEN), kept off the public port: only
// GET /metrics, for a single server and a cluster's primary alike, on the one pipeline.
import { createServer, type Server } from 'node:http';
import type { Logger } from '../log.js';
import { HttpError } from './errors.js';
import { listen } from './listen.js';
import { nodeHandler } from './node.js';
import { createPipeline } from './pipeline.js';

/** The exposition text and its content type; null when it cannot be had now (answered 503). */
export type Scrape = () => Promise<{ body: string; contentType: string } | null>;

/**
 * Listen on `where` and answer GET /metrics from `scrape`; 404 for any other path, 503 (never 500)
 * when the metrics cannot be gathered.
 *
 * @example
 * ```ts
 * const { url } = await metricsListener({ host: '127.0.0.1', port: 9464 }, async () => metrics.text(), log);
 * ```
 */
export async function metricsListener(
  where: { host: string; port: number },
  scrape: Scrape,
  log: Logger,
): Promise<{ server: Server; url: string }> {
  const busy = () => new HttpError('unavailable', 'the metrics cannot be gathered now; retry shortly', { retryAfter: 1 });
  const { handle } = createPipeline({
    routes: [
      {
        method: 'GET',
        path: '/metrics',
        group: 'none',
        cache: 'no-store',
        run: async () => {
          const t = await scrape().catch(() => null);
          if (t === null) throw busy();
          return { status: 200, body: t.body, headers: { 'content-type': t.contentType } };
        },
      },
    ],
    log,
  });
  const server = createServer(nodeHandler(handle, { log, trustedProxies: [] }));
  return { server, url: `${await listen(server, where.host, where.port)}/metrics` };
}
