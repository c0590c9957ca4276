// Metrics on a listener of their own (SVC_METRICS_LISTEN), kept off the public port: only
// GET /metrics, nothing else, for a single server and a cluster's primary alike.
import { createServer, type Server } from 'node:http';
import { listen } from './listen.js';

/** The exposition text and its content type; null when it cannot be had now (answered 503). */
export type Scrape = () => Promise<{ body: string; contentType: string } | null>;

/**
 * Listen on `where` and answer GET /metrics from `scrape`; 404 for any other request, 503 (never
 * 500) when the metrics cannot be gathered.
 *
 * @example
 * ```ts
 * const { url } = await metricsListener({ host: '127.0.0.1', port: 9464 }, async () => metrics.text());
 * ```
 */
export async function metricsListener(where: { host: string; port: number }, scrape: Scrape): Promise<{ server: Server; url: string }> {
  const server = createServer((req, res) => {
    if (req.method !== 'GET' || (req.url ?? '').split('?')[0] !== '/metrics') {
      res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('only GET /metrics here\n');
      return;
    }
    scrape().then(
      (t) =>
        t === null
          ? res.writeHead(503, { 'retry-after': '1', 'cache-control': 'no-store' }).end()
          : res.writeHead(200, { 'content-type': t.contentType, 'cache-control': 'no-store' }).end(t.body),
      () => res.writeHead(503, { 'retry-after': '1', 'cache-control': 'no-store' }).end(),
    );
  });
  return { server, url: `${await listen(server, where.host, where.port)}/metrics` };
}
