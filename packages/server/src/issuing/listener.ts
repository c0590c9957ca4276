// Starting the private issuing listener (SVC_ISSUE_LISTEN) beside the public one: its own port, its
// own tokens, TLS beyond loopback (config.ts refuses to start otherwise), the public listener's
// deadlines, body budget and connection cap. Upstream seats come from the council file, read again
// when it changes.
import type { Server } from 'node:http';
import type { Config, IssueListenerConfig } from '../config.js';
import { loadCouncilConfig, type CouncilConfig } from '../council/probe.js';
import type { BodyBudget } from '../http/body.js';
import { listen, publicServer } from '../http/listen.js';
import type { Issuer } from './issuer.js';
import type { Logger } from '../log.js';
import { rereadOnChange } from '../util/reread.js';
import { issuingApp } from './app.js';
import type { Upstream, Upstreams } from './upstream.js';
import { TokenFile } from './tokens.js';

/** The seats of the council file, by id or model; the file is read again when it changes. */
export function councilUpstreams(file: string, env: NodeJS.ProcessEnv, log: Logger): Upstreams {
  const current = rereadOnChange(file, (present): CouncilConfig | null => {
    try {
      return present ? loadCouncilConfig(file) : null;
    } catch (e) {
      log('council_file_invalid', { file, error: e instanceof Error ? e.message : String(e) });
      return null;
    }
  });
  return {
    seat(model: string): Upstream | null {
      const c = current();
      const s = c?.seats.find((x) => x.id === model) ?? c?.seats.find((x) => x.model === model);
      const endpoint = s?.endpoint ?? c?.endpoint;
      if (!s || !endpoint) return null;
      const key = s.key_env ? env[s.key_env] : undefined;
      const base = endpoint.replace(/\/+$/, '');
      return { url: `${base}/chat/completions`, responses: `${base}/responses`, model: s.model, ...(key ? { key } : {}) };
    },
  };
}

/**
 * Listen for issuing requests with `issuer`; `take` is the cluster's shared limiter where there is one.
 *
 * @example
 * ```ts
 * const { url, close } = await issueListener(cfg, cfg.issue!, issuer, log);
 * ```
 */
export async function issueListener(
  cfg: Config,
  where: IssueListenerConfig,
  issuer: Pick<Issuer, 'issueMany' | 'issueTranscript' | 'issueRun' | 'issueExport'>,
  log: Logger,
  opts: {
    env?: NodeJS.ProcessEnv;
    take?: (key: string, perMinute: number, count?: number) => number | null | Promise<number | null>;
    closing?: () => boolean;
    /** The body budget this process's listeners share (default: one of the listener's own). */
    budget?: BodyBudget;
  } = {},
): Promise<{ server: Server; url: string; tokens: TokenFile }> {
  const tokens = new TokenFile(where.tokens, log);
  if (tokens.count() === 0)
    log('issue_tokens_none', {
      file: where.tokens,
      hint: 'add one with: svc token add NAME (every issuing request is refused until then)',
    });
  const app = issuingApp({
    issue: (inputs, owner) => issuer.issueMany(inputs, owner),
    kinds: issuer,
    tokens,
    ledger: cfg.ledger,
    service: cfg.service,
    perMinute: where.perMinute,
    ...(opts.take ? { take: opts.take } : {}),
    upstreams: councilUpstreams(cfg.councilFile, opts.env ?? process.env, log),
    upstreamMs: where.upstreamMs,
    log,
  });
  const server = publicServer(cfg, app.handle, log, {
    ...(opts.closing ? { closing: opts.closing } : {}),
    ...(opts.budget ? { budget: opts.budget } : {}),
    ...(where.tls ? { tls: where.tls } : {}),
  });
  (server as unknown as { httpAllowHalfOpen: boolean }).httpAllowHalfOpen = true;
  const url = await listen(server, where.host, where.port, where.tls ? 'https' : 'http');
  return { server, url, tokens };
}
