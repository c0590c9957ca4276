// A server with its private issuing listener, tokens made as `svc token add` makes them, and the
// keys a verifier pins, for the issuing tests.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { namesFor, verifyBundle } from '@svc/core';
import type { ProofBundle } from '@svc/core/issue';
import { asKind } from '@svc/core/testing';
import { addToken, Keyring, loadConfig, pinnedKeys, startServer, type Running } from '../../src/internal.js';

export interface IssuingServer extends Running {
  dir: string;
  issueUrl: string;
  tokens: Record<string, string>;
  lines: Record<string, unknown>[];
  stop(): Promise<void>;
}

/** A server with SVC_ISSUE_LISTEN on a free loopback port and the named tokens. */
export async function issuingServer(
  o: { tokens?: string[]; env?: NodeJS.ProcessEnv; council?: unknown; dir?: string } = {},
): Promise<IssuingServer> {
  const dir = o.dir ?? mkdtempSync(join(tmpdir(), 'svc-issue-'));
  const tokens: Record<string, string> = {};
  for (const name of o.tokens ?? ['app']) tokens[name] = addToken(join(dir, 'issue-tokens'), name);
  if (o.council) writeFileSync(join(dir, 'council.json'), JSON.stringify(o.council));
  const env = {
    SVC_DATA_DIR: dir,
    PORT: '0',
    SVC_WORKERS: '1',
    SVC_ISSUE_LISTEN: '127.0.0.1:0',
    SVC_LEDGER_BATCH_SECONDS: '0.05',
    ...o.env,
  };
  const lines: Record<string, unknown>[] = [];
  const running = await startServer(loadConfig(env), { env, log: (event, fields) => lines.push({ event, ...fields }) });
  return {
    ...running,
    dir,
    issueUrl: running.issueUrl!,
    tokens,
    lines,
    stop: async () => {
      await running.close();
      if (!o.dir) rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** POST JSON (or raw text) with a bearer token; the status, headers and parsed body. */
export async function post(url: string, body: unknown, token?: string, headers: Record<string, string> = {}) {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}), ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await res.text();
  let parsed: any;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = text;
  }
  return { status: res.status, headers: res.headers, body: parsed, text };
}

/** The verdict of a bundle under the keys of the data folder's keyring (what a verifier pins). */
export async function verdictOf(dir: string, bundle: ProofBundle | unknown) {
  const ring = Keyring.load(join(dir, 'keys')).ring;
  return verifyBundle(bundle, { trustedKeys: pinnedKeys(ring, namesFor('svc'), false) });
}

/** The proof verdict of `bundle`, typed; throws when it is read as another kind. */
export async function proofVerdictOf(dir: string, bundle: ProofBundle | unknown) {
  return asKind(await verdictOf(dir, bundle), 'proof').verdict;
}

/**
 * A loopback stand-in for a model endpoint: each request's JSON body (or its raw text, when it is
 * not JSON) is handed to `answer` with the response to write. `base` is its origin.
 */
export async function upstreamServer(answer: (req: IncomingMessage, body: any, res: ServerResponse) => void) {
  const server = createServer((req, res) => {
    let raw = '';
    req.on('data', (c) => (raw += c));
    req.on('end', () => {
      let body: unknown = raw;
      try {
        body = JSON.parse(raw);
      } catch {}
      answer(req, body, res);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    async close() {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    },
  };
}

/** What a seat's upstream streams (raw event-stream text, sent piece by piece) or answers (JSON). */
export interface Script {
  stream?: (string | Uint8Array)[];
  json?: unknown;
}

/**
 * An issuing server whose council has `seats` seats, each served by one loopback upstream that
 * answers whatever script the seat was last given, on any path (chat completions or responses).
 */
export async function scriptedFront(seats = 40, env: NodeJS.ProcessEnv = {}) {
  const scripts = new Map<string, Script>();
  const asked: { seat: string; path: string; body: any }[] = [];
  let seq = 0;
  const upstream = await upstreamServer((req, body, res) => {
    const [, id, ...rest] = req.url!.split('/');
    asked.push({ seat: id!, path: `/${rest.join('/')}`, body });
    const script = scripts.get(id!);
    if (!script) return void res.writeHead(404).end();
    if (script.json !== undefined) {
      res.writeHead(200, { 'content-type': 'application/json' });
      return void res.end(JSON.stringify(script.json));
    }
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    for (const piece of script.stream!) res.write(piece);
    res.end();
  });
  const base = upstream.base;
  const s = await issuingServer({
    env: { SVC_UPSTREAM_SECONDS: '5', SVC_RATE_ISSUE: '0', ...env },
    council: {
      seats: Array.from({ length: seats }, (_, i) => ({ id: `s${i}`, label: `s${i}`, model: `m${i}`, endpoint: `${base}/s${i}/v1` })),
    },
  });
  return {
    s,
    asked,
    /** A seat that answers with this script (seats are reused round the table). */
    seat(script: Script): string {
      const id = `s${seq++ % seats}`;
      scripts.set(id, script);
      return id;
    },
    async stop() {
      await s.stop();
      await upstream.close();
    },
  };
}
