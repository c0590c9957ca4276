import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { isSvcError, parseDocument, type ReceiptKey } from '@svc/core';
import type { BridgeKey } from '@svc/core/issue';
import { io } from './streams.js';
import { PEER_CAPS, PEER_DEADLINE_MS, PeerAnswerTooLarge, textCapped } from '../net/peer.js';

export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: number,
  ) {
    super(message);
  }
}

const WHY: Record<string, string> = { ENOENT: 'no such file', EACCES: 'permission denied', EISDIR: 'it is a folder' };

/** A file's text (`-`: standard input), or an error naming the flag, the file and the cause. */
export function readInput(file: string, flag?: string): string {
  try {
    return file === '-' ? io().readStdin() : readFileSync(file, 'utf8');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    const why = (code && WHY[code]) ?? code ?? (e as Error).message;
    throw new CliError(
      `cannot read ${flag ? `${flag} ` : ''}${file === '-' ? 'standard input' : file}: ${why}${code && WHY[code] ? ` (${code})` : ''}`,
      2,
    );
  }
}

/** Keys from a saved `/api/provenance/pubkey` response: its `keys`, plus `slh_diversity` when present. */
export function keysFromPubkeyResponse(doc: unknown, where: string): ReceiptKey[] {
  const d = doc as { keys?: unknown; slh_diversity?: { public_key_hex?: string; key_id?: string }; context?: string };
  if (!d || !Array.isArray(d.keys)) throw new CliError(`${where} is not a /api/provenance/pubkey response (no keys array)`, 2);
  const keys = [...(d.keys as ReceiptKey[])];
  if (d.slh_diversity?.public_key_hex) {
    keys.push({
      key_id: d.slh_diversity.key_id ?? '',
      public_key_hex: d.slh_diversity.public_key_hex,
      algo: 'SLH-DSA-SHA2-256f',
      context: d.context ?? '',
    });
  }
  return keys;
}

export function loadKeysFile(file: string): ReceiptKey[] {
  let doc: unknown;
  try {
    doc = parseDocument(readInput(file));
  } catch (e) {
    if (e instanceof CliError) throw e;
    throw new CliError(`${file} is not valid JSON${isSvcError(e) ? ` (${e.message})` : ''}`, 2);
  }
  return keysFromPubkeyResponse(doc, file);
}

/** Why a request failed, in words: fetch itself says only "fetch failed" and hides the cause. */
export function networkCause(e: unknown): string {
  const err = e as Error & { cause?: { code?: string; message?: string; cause?: { code?: string } } };
  if (err?.name === 'TimeoutError' || err?.name === 'AbortError') return 'timed out after 30 s';
  const code = err?.cause?.code ?? err?.cause?.cause?.code;
  switch (code) {
    case 'ECONNREFUSED':
      return 'connection refused (is the server running on that port?)';
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return 'host name not found (DNS)';
    case 'ECONNRESET':
      return 'connection reset by the server';
    case 'ETIMEDOUT':
    case 'UND_ERR_CONNECT_TIMEOUT':
      return 'connection timed out';
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
      return 'network unreachable';
  }
  if (typeof code === 'string' && /CERT|SSL|TLS/.test(code)) return `TLS error (${code})`;
  if (err instanceof TypeError && /Invalid URL|Failed to parse URL/i.test(err.message + (err.cause?.message ?? '')))
    return 'not a valid URL';
  return code ? `${err?.cause?.message ?? err.message} (${code})` : (err?.cause?.message ?? err?.message ?? String(e));
}

// biome-ignore lint/suspicious/noExplicitAny: JSON from a server; each caller checks what it reads.
export async function fetchJson(url: string, init?: RequestInit, deadlineMs = PEER_DEADLINE_MS): Promise<{ status: number; body: any }> {
  let res: Response;
  const deadline = AbortSignal.timeout(deadlineMs);
  try {
    res = await fetch(url, { ...init, signal: deadline });
  } catch (e) {
    throw new CliError(`cannot reach ${url}: ${networkCause(e)}`, 2);
  }
  let text: string;
  try {
    text = await textCapped(res, PEER_CAPS.json, url, deadline);
  } catch (e) {
    throw new CliError(e instanceof PeerAnswerTooLarge ? e.message : `reading ${url}: ${networkCause(e)}`, 2);
  }
  try {
    return { status: res.status, body: JSON.parse(text) };
  } catch {
    throw new CliError(`${url} answered ${res.status} with a body that is not JSON`, 2);
  }
}

/** The service's endpoints a user may paste in place of its base URL. */
const ENDPOINTS =
  /\/(api\/provenance\/pubkey|v1\/provenance\/pubkeys|api\/transparency\/ledger(\/(inclusion|consistency|history))?|openapi\.json|api\/cbom|api\/v1\/verify)\/*$/;

/** The base URL of a service, given its base or the URL of one of its endpoints (query and trailing slashes dropped). */
export function baseUrl(u: string): string {
  const noQuery = u.replace(/[?#].*$/, '').replace(/\/+$/, '');
  return noQuery.replace(ENDPOINTS, '');
}

/**
 * The model-plane keys of `/v1/provenance/pubkeys`; none from a server that does not publish them.
 * Typed as published; the verifier skips any entry that is not of that shape, so a server's odd
 * answer can only pin less, never more.
 */
export async function fetchBridgeKeys(base: string): Promise<BridgeKey[]> {
  const url = `${baseUrl(base)}/v1/provenance/pubkeys`;
  const r = await fetchJson(url);
  return r.status === 200 && Array.isArray(r.body?.keys) ? r.body.keys : [];
}

export async function fetchKeys(base: string): Promise<ReceiptKey[]> {
  const url = `${baseUrl(base)}/api/provenance/pubkey`;
  const r = await fetchJson(url);
  if (r.status !== 200) throw new CliError(`${url} answered ${r.status}`, 2);
  return keysFromPubkeyResponse(r.body, url);
}

/**
 * Refuse a data folder that holds no keyring: a mistyped --data-dir must not make a new keyring
 * and sign with it. Only `svc keygen` and `svc serve` (on its first start) make one.
 */
export function requireKeyring(dataDir: string): void {
  if (!existsSync(join(dataDir, 'keys')))
    throw new CliError(
      `no keyring in ${dataDir} (no keys folder): give the data folder of your server with --data-dir or SVC_DATA_DIR, or make one with svc keygen --data-dir ${dataDir}`,
      2,
    );
}
