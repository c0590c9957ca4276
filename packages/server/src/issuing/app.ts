// The private issuing listener's app: bearer tokens first, then a rate limit per token, then the
// routes (one answer, a batch, the OpenAI-compatible front, its own OpenAPI document). The same
// pipeline as the public port, so hostile input meets the same limits; none of it is mounted there.
import { parseDocument } from '@svc/core';
import type { ProofBundle } from '@svc/core/issue';
import { HttpError } from '../http/errors.js';
import { fetchHandler } from '../http/fetch.js';
import { createPipeline, mount } from '../http/pipeline.js';
import { RateLimiter } from '../http/ratelimit.js';
import { json, type AppRequest, type Handler } from '../http/types.js';
import type { IssueInput, Issuer } from './issuer.js';
import { parseExport, parseRun, parseTranscript } from './kind-input.js';
import { LedgerError } from '../ledger/errors.js';
import { SignerBusy } from './signers.js';
import type { Logger } from '../log.js';
import { IssueBatchRequest, parseIssueInput, schemaError } from './input.js';
import { chatCompletions, type Upstreams } from './openai.js';
import { responses } from './responses.js';
import { issueOpenApiDocument } from './openapi.js';
import { ISSUE_ROUTES, type IssueOperationId } from './routes.js';
import { TOKEN_PREFIX, type TokenFile } from './tokens.js';

export interface IssuingDeps {
  /** Sign and log answers; `owner` is the token's name, whose turn they wait in. */
  issue(inputs: readonly IssueInput[], owner?: string): Promise<ProofBundle[]>;
  /** The kinds beyond one answer: a transcript of issued turns, a run evidence pack, an export. */
  kinds: Pick<Issuer, 'issueTranscript' | 'issueRun' | 'issueExport'>;
  tokens: Pick<TokenFile, 'match'>;
  /** Whether logged and scitt answers can be had (the ledger is on). */
  ledger: boolean;
  service: string;
  /** Requests per minute per token (0: none); `take` is the cluster's shared limiter where there is one. */
  perMinute: number;
  take?: (key: string, perMinute: number, count?: number) => number | null | Promise<number | null>;
  upstreams: Upstreams;
  /** How long the front waits for an upstream model, body included (ms). */
  upstreamMs?: number;
  log: Logger;
  now?: () => number;
  /** Proxies whose X-Forwarded-For `fetch` believes for the logged client address (default none). */
  trustedProxies?: string[];
}

const UNAUTHORIZED = (why: string) => new HttpError('unauthorized', why, { headers: { 'www-authenticate': 'Bearer realm="svc-issue"' } });

// Names a client might put a token under in a URL: refused before anything else is looked at.
const TOKEN_IN_QUERY = ['token', 'access_token', 'api_key', 'apikey', 'key', 'auth', 'authorization', 'bearer'];

/** The token's name, or a 401: the Authorization header only, `Bearer` and one token. */
export function authenticate(req: AppRequest, tokens: Pick<TokenFile, 'match'>): string {
  // Under a name of its own or any other: a query value that is a token, or looks like one of ours.
  for (const [k, v] of req.query.entries())
    if (TOKEN_IN_QUERY.includes(k.toLowerCase()) || v.includes(TOKEN_PREFIX) || k.includes(TOKEN_PREFIX) || tokens.match(v) !== null)
      throw UNAUTHORIZED(
        'a token goes in the Authorization header (Bearer), never in the URL: URLs are logged and cached; treat this one as exposed',
      );
  const h = req.headers.authorization;
  if (h === undefined) throw UNAUTHORIZED('send Authorization: Bearer <token> (a token from svc token add)');
  if (Array.isArray(h)) throw UNAUTHORIZED('send one Authorization header');
  const m = /^Bearer +([\x21-\x7e]{1,512})\s*$/i.exec(h);
  if (!m) throw UNAUTHORIZED('the Authorization header must be "Bearer <token>"');
  const name = tokens.match(m[1]!);
  if (name === null) throw UNAUTHORIZED('the token is not valid here (unknown or revoked)');
  return name;
}

async function readJson(req: AppRequest): Promise<unknown> {
  return parseDocument(await req.body());
}

/**
 * The issuer's refusals the client can act on, as answers: 422 what cannot be signed, 429 when the
 * caller's answers already fill its share of the signing queue, 503 when the ledger withholds its
 * head or cannot be reached. Anything else stays a fault of the server.
 */
async function kinded<T>(issue: () => Promise<T>): Promise<T> {
  try {
    return await issue();
  } catch (e) {
    if (e instanceof LedgerError && e.code === 'invalid_request') throw new HttpError('invalid_request', e.message);
    if (e instanceof SignerBusy) throw new HttpError('rate_limited', `nothing was signed: ${e.message}`, { retryAfter: 1 });
    if (e instanceof LedgerError && (e.code === 'withheld' || e.code === 'unavailable'))
      throw new HttpError('unavailable', `nothing was signed: ${e.message}`, { retryAfter: 5 });
    throw e;
  }
}

const issued = (d: IssuingDeps, inputs: IssueInput[], owner: string | undefined): Promise<ProofBundle[]> =>
  kinded(() => d.issue(inputs, owner));

/**
 * The private listener's request handler.
 *
 * @example
 * ```ts
 * const { handle, fetch } = issuingApp({ issue: (i) => issuer.issueMany(i), kinds: issuer, tokens, ledger: true, service: 'svc', perMinute: 600, upstreams, log });
 * ```
 */
export function issuingApp(d: IssuingDeps) {
  // The front's routes sign through the same refusals as the issuing routes.
  const front = { ...d, issue: (inputs: readonly IssueInput[], owner?: string) => issued(d, [...inputs], owner) };
  const limiter = new RateLimiter(d.now);
  const take = d.take ?? ((key: string, n: number, count = 1) => limiter.take(key, 'issue', n, count));
  /** The limit counts answers: a batch spends the rest of its answers once it is read (issue 53 row 7). */
  const spend = async (name: string, count: number) => {
    if (d.perMinute <= 0 || count <= 0) return;
    const wait = await take(name, d.perMinute, count);
    if (wait === null) throw new HttpError('unavailable', 'the rate limiter is busy; retry shortly', { retryAfter: 1 });
    if (wait > 0)
      throw new HttpError('rate_limited', `token ${name}: ${count + 1} answers are over its ${d.perMinute} a minute; retry later`, {
        retryAfter: wait,
      });
  };
  // Every issuing route: authenticated, then limited per token, then run.
  const guarded =
    (run: Handler): Handler =>
    async (req, params) => {
      const name = authenticate(req, d.tokens);
      req.principal = name;
      const wait = d.perMinute > 0 ? await take(name, d.perMinute) : 0;
      if (wait === null) throw new HttpError('unavailable', 'the rate limiter is busy; retry shortly', { retryAfter: 1 });
      if (wait > 0) throw new HttpError('rate_limited', `token ${name}: rate limit exceeded; retry later`, { retryAfter: wait });
      return run(req, params);
    };
  const doc = JSON.stringify(issueOpenApiDocument(d.service));
  const kindRoute = <I>(
    parse: (b: unknown) => I | string,
    issue: (i: I) => Promise<unknown>,
    kind: 'transcript' | 'run' | 'export',
  ): Handler =>
    guarded(async (req) => {
      const input = parse(await readJson(req));
      if (typeof input === 'string') throw new HttpError('invalid_request', input);
      // A transcript's turns are answers: each counts against the token's limit.
      if (kind === 'transcript') await spend(req.principal!, (input as { turns: unknown[] }).turns.length - 1);
      const bundle = await kinded(() => issue(input));
      d.log('issued', { token: req.principal, kind });
      return json(200, bundle);
    });
  const handlers: Record<IssueOperationId, Handler> = {
    issue: guarded(async (req) => {
      const input = parseIssueInput(await readJson(req), d);
      if (typeof input === 'string') throw new HttpError('invalid_request', input);
      const [bundle] = await issued(d, [input], req.principal);
      d.log('issued', { token: req.principal, answers: 1 });
      return json(200, bundle);
    }),
    issueBatch: guarded(async (req) => {
      const body = await readJson(req);
      const bad = schemaError(IssueBatchRequest, body);
      // Each answer is checked before any is signed: a batch is signed whole or not at all.
      if (bad) throw new HttpError('invalid_request', bad);
      const inputs = (body as { answers: unknown[] }).answers.map((a, i) => {
        const r = parseIssueInput(a, d);
        if (typeof r === 'string') throw new HttpError('invalid_request', `answers[${i}]: ${r}`);
        return r;
      });
      // The request itself spent one; the batch's other answers are spent before any is signed.
      await spend(req.principal!, inputs.length - 1);
      const bundles = await issued(d, inputs, req.principal);
      d.log('issued', { token: req.principal, answers: bundles.length });
      return json(200, { bundles });
    }),
    issueTranscript: kindRoute(
      (b) => parseTranscript(b, d),
      (i) => d.kinds.issueTranscript(i),
      'transcript',
    ),
    issueRun: kindRoute(parseRun, (i) => d.kinds.issueRun(i), 'run'),
    issueExport: kindRoute(parseExport, (i) => d.kinds.issueExport(i), 'export'),
    chatCompletions: guarded(async (req) => chatCompletions(req, await readJson(req), front)),
    responses: guarded(async (req) => responses(req, await readJson(req), front)),
    issueOpenApi: async () => ({ status: 200, body: doc, headers: { 'content-type': 'application/json; charset=utf-8' } }),
  };
  const routes = mount(ISSUE_ROUTES, handlers);
  const { handle } = createPipeline({ routes, log: d.log });
  return { handle, fetch: fetchHandler(handle, { log: d.log, trustedProxies: d.trustedProxies ?? [] }) };
}
