// `svc verify` of a bare envelope: a JWS (general JSON serialization) or a COSE_Sign1 (binary, or
// base64url text), as `receipt.envelopes` carries them. An envelope names its key only by kid, so
// keys are required: a JWK Set or COSE_KeySet file, or the server's, fetched once.
import { readFileSync } from 'node:fs';
import { parseDocument } from '@svc/core';
import { fromBase64Url, fromUtf8 } from '@svc/core/primitives';
import { coseClaims, readCoseKeySet, verifyCose1, verifyJws, type EnvelopeVerdict, type Jwks } from '@svc/core/envelope';
import { PEER_CAPS, PEER_DEADLINE_MS, readCapped } from '../net/peer.js';
import { CliError, baseUrl, fetchJson, networkCause, readInput } from './common.js';
import { jsonForTerminal } from './io.js';

/** What an input holds when it is an envelope, else null (a bundle: verified as before). */
export function asEnvelope(bytes: Uint8Array): { jws: unknown } | { cose: Uint8Array } | null {
  if (bytes[0] === 0xd2) return { cose: bytes };
  let text: string;
  try {
    text = fromUtf8(bytes).trim();
  } catch {
    return null;
  }
  if (/^[A-Za-z0-9_-]{16,}$/.test(text)) {
    const b = fromBase64Url(text);
    if (b?.[0] === 0xd2) return { cose: b };
  }
  if (text.startsWith('{') && text.includes('"signatures"')) {
    try {
      const doc = parseDocument(text) as Record<string, unknown>;
      if (typeof doc?.payload === 'string' && Array.isArray(doc.signatures)) return { jws: doc };
    } catch {}
  }
  return null;
}

export function readBytes(file: string): Uint8Array {
  try {
    return new Uint8Array(readFileSync(file));
  } catch (e) {
    // Unreadable: said by readInput, with the same words as for any other input.
    readInput(file);
    throw new CliError(`cannot read ${file}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`, 2);
  }
}

async function keysFor(kind: 'jws' | 'cose', opts: { keys?: string; 'keys-url'?: string }): Promise<Jwks | unknown[]> {
  if (opts.keys) {
    const bytes = readBytes(opts.keys);
    try {
      return kind === 'jws' ? (parseDocument(bytes) as Jwks) : readCoseKeySet(bytes);
    } catch (e) {
      throw new CliError(`${opts.keys} is not a ${kind === 'jws' ? 'JWK Set' : 'COSE_KeySet'}: ${(e as Error).message}`, 2);
    }
  }
  if (!opts['keys-url'])
    throw new CliError('an envelope names its key only by kid: give --keys-url BASE, or --keys FILE (a JWK Set or a COSE_KeySet)', 2);
  const base = baseUrl(opts['keys-url']);
  if (kind === 'jws') {
    const r = await fetchJson(`${base}/api/provenance/jwks.json`);
    if (r.status !== 200) throw new CliError(`${base}/api/provenance/jwks.json answered ${r.status}`, 2);
    return r.body as Jwks;
  }
  return fetchCoseKeys(`${base}/api/provenance/cose-keys`);
}

/** A COSE_KeySet fetched once (capped, with the peers' deadline); exit 2 when it cannot be had. */
export async function fetchCoseKeys(url: string): Promise<unknown[]> {
  try {
    const deadline = AbortSignal.timeout(PEER_DEADLINE_MS);
    const res = await fetch(url, { signal: deadline });
    if (res.status !== 200) throw new CliError(`${url} answered ${res.status}`, 2);
    return readCoseKeySet(await readCapped(res, PEER_CAPS.json, url, deadline));
  } catch (e) {
    if (e instanceof CliError) throw e;
    throw new CliError(`cannot read the COSE keys of ${url}: ${networkCause(e)}`, 2);
  }
}

/** Verify an envelope file; exit 0 when every signature verifies with the keys given, else 1. */
export async function verifyEnvelope(
  env: { jws: unknown } | { cose: Uint8Array },
  opts: { json?: boolean; keys?: string; 'keys-url'?: string },
  out: (s: string) => void,
): Promise<number> {
  const isJws = 'jws' in env;
  const keys = await keysFor(isJws ? 'jws' : 'cose', opts);
  // Any kind is read here, and the kind signed is printed beside the verdict: the opt-out is explicit.
  const v: EnvelopeVerdict = isJws
    ? verifyJws(env.jws, keys as Jwks, { typ: null })
    : verifyCose1(env.cose, keys as unknown[], { typ: null });
  const typ = isJws ? jwsTyp(env.jws) : coseClaims(env.cose)?.typ;
  let payload: unknown = null;
  if (v.ok && v.payload) {
    try {
      payload = JSON.parse(fromUtf8(v.payload));
    } catch {
      payload = null;
    }
  }
  if (opts.json) out(jsonForTerminal({ format: isJws ? 'jws' : 'cose', ok: v.ok, error: v.error, typ, signatures: v.signatures, payload }));
  else {
    const lines = [
      `Envelope: ${isJws ? 'JWS (general JSON serialization)' : 'COSE_Sign1'}${typ ? `, typ ${typ}` : ''}`,
      v.ok
        ? 'Integrity: PASS. Every signature verifies with the keys given; the payload is unaltered.'
        : `Integrity: FAIL (${v.error}). ${v.detail ?? ''}`.trim(),
      ...v.signatures.map((s) => `  ${s.alg} ${s.ok ? 'ok' : `FAILED (${s.error})`}, key ${s.kid.slice(0, 16)}`),
    ];
    if (payload && typeof payload === 'object') {
      const p = payload as Record<string, unknown>;
      lines.push(`  signed receipt: answer_sha256 ${String(p.answer_sha256)}, ts ${String(p.ts)}, context ${String(p.context)}`);
    }
    lines.push('A passing verdict attests origin and integrity only, never that the content is accurate.');
    out(lines.join('\n'));
  }
  return v.ok ? 0 : 1;
}

function jwsTyp(jws: unknown): string | undefined {
  const first = (jws as { signatures?: { protected?: unknown }[] }).signatures?.[0]?.protected;
  const bytes = fromBase64Url(first);
  if (!bytes) return undefined;
  try {
    const h = JSON.parse(fromUtf8(bytes));
    return typeof h?.typ === 'string' ? h.typ : undefined;
  } catch {
    return undefined;
  }
}
