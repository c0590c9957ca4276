// A server with its private issuing listener, tokens made as `svc token add` makes them, and the
// keys a verifier pins, for the issuing tests.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { namesFor, verifyBundle, type ProofBundle } from '@svc/core';
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
