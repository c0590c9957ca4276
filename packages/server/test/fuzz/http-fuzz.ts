// An HTTP fuzzer over raw sockets: request lines, targets, headers, chunked framing, query strings,
// methods and bodies of every bundle kind mutated. After every case the server must still answer,
// and never with a 5xx (except the council probe's documented 503 {ok:false}).
import { fuzzCorpus, mutate, prng } from '@svc/core/arbitraries';
import { mlDsa87Signer } from '@svc/core/envelope';
import { signStatement } from '@svc/core/scitt';
import { testKeys } from '@svc/core/testing';
import { rawRequest } from '../support/rawhttp.js';

export interface HttpCase {
  name: string;
  parts: (string | Uint8Array)[];
  /** Whether the request is complete as framed, so an answer must come. */
  complete: boolean;
  head?: boolean;
}

export interface HttpFinding {
  kind: '5xx' | 'hang' | 'dead';
  case: string;
  detail: string;
}

export interface HttpFuzzStats {
  cases: number;
  statuses: Record<string, number>;
  findings: HttpFinding[];
}

const enc = new TextEncoder();
const ROUTES = [
  '/api/v1/verify',
  '/api/v1/evidence',
  '/api/v1/evidence?org=acme',
  '/api/provenance/pubkey',
  '/api/provenance/jwks.json',
  '/api/provenance/jwks.json?kind=run',
  '/api/provenance/jwks.json?kind=%00',
  '/api/provenance/cose-keys?kind=tree-head',
  '/api/provenance/cose-keys?kind=answer&kind=run',
  '/v1/provenance/pubkeys',
  '/api/v1/evidence-signer',
  '/api/cbom',
  '/api/status/council',
  '/api/transparency/ledger',
  '/api/transparency/ledger/inclusion',
  '/api/transparency/ledger/consistency?first=1',
  '/api/transparency/ledger/consistency?first=1&second=1&signed=1',
  '/api/transparency/ledger/history?verifiable=1',
  '/api/transparency/tlog/checkpoint',
  '/api/transparency/tlog/vkeys',
  '/api/transparency/tlog/tile/0/000',
  '/api/transparency/tlog/tile/0/000.p/1',
  '/api/transparency/tlog/tile/entries/000.p/1',
  '/api/transparency/tlog/tile/1/x001/000.p/255',
  '/api/transparency/tlog/tile/63/x999/x999/x999/x999/x999/999',
  '/api/transparency/tlog/tile/0/000.p/0',
  '/api/transparency/tlog/tile/../checkpoint',
  '/api/transparency/tlog/tile/0/%30%30%30',
  '/api/transparency/tlog/tile/',
  '/openapi.json',
  '/entries',
  `/entries/${'0'.repeat(64)}`,
  `/entries/${'0'.repeat(64)}?alg=EdDSA`,
  '/entries/%00',
  '/.well-known/scitt-keys',
  '/.well-known/scitt-keys/AAAA',
  '/.well-known/transparency-configuration',
  '/',
];
const METHODS = ['GET', 'POST', 'HEAD', 'OPTIONS', 'PUT', 'DELETE', 'PATCH', 'TRACE', 'CONNECT', 'get', 'PRI', 'X'.repeat(40), 'GET\u0000'];
const VERSIONS = ['HTTP/1.1', 'HTTP/1.1', 'HTTP/1.1', 'HTTP/1.0', 'HTTP/2.0', 'HTTP/1.1x', 'HTTP/9', ''];
const ODD_TARGETS = [
  '//',
  '//[',
  'http://[',
  '//a:99999',
  'http://a:99999/',
  'http://a/api/cbom',
  '*',
  'foo',
  '/%',
  '/%zz',
  '/a/../api/cbom',
  '/api//v1/verify',
  `/${'a'.repeat(9000)}`,
  '/api/cbom#frag',
  '/\u00ff',
  '/api/cbom?',
  '/api/cbom?&&&=&',
];
const ODD_QUERIES = [
  'first=-1',
  'first=1e3',
  'first=99999999999999999',
  'first=1&first=2',
  'first=%00',
  'second=0&first=1',
  'signed=2',
  'signed=',
  'verifiable=1&verifiable=1',
  `org=${'x'.repeat(300)}`,
  'org=%F0%9F',
  'org=%ED%A0%80',
  Array.from({ length: 1000 }, (_, i) => `p${i}=${i}`).join('&'),
];
const ODD_HEADERS = [
  'X-Forwarded-For: 1.2.3.4, ::1, garbage, , 999.1.1.1',
  `X-Forwarded-For: ${'1.1.1.1,'.repeat(2000)}`,
  'Content-Type: text/plain',
  'Content-Type: application/cose',
  'Content-Type: application/cose; cose-type="cose-sign1"',
  'Content-Type: application/json; charset=latin1',
  'Expect: 100-continue',
  'Expect: bogus',
  'Accept: */*',
  'Origin: https://evil.example',
  'Access-Control-Request-Method: POST',
  `X-Big: ${'b'.repeat(20_000)}`,
  'NoColonHere',
  ' folded: value',
  'Bad\u0000Name: x',
  `Cookie: ${'c=1; '.repeat(500)}`,
];

const pick = <T>(r: () => number, xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;

// A SCITT Signed Statement by a key no policy holds, and COSE-shaped noise: what POST /entries reads.
let statement: Uint8Array | null = null;
function cose(r: () => number): Uint8Array {
  statement ??= signStatement(
    { answerSha256: new Uint8Array(32), iss: 'fuzz', sub: 'urn:fuzz', iat: 1, typ: 'application/vnd.fuzz+cose' },
    mlDsa87Signer(testKeys('http-fuzz').answer),
  );
  const b = statement.slice(0, Math.max(1, Math.floor(r() * statement.length * 1.2)));
  for (let i = Math.floor(r() * 4); i > 0; i--) b[Math.floor(r() * b.length)]! ^= 1 + Math.floor(r() * 255);
  return r() < 0.2 ? Uint8Array.from([0xd2, 0x84, ...Array.from({ length: Math.floor(r() * 300) }, () => Math.floor(r() * 256))]) : b;
}

function bodyFor(r: () => number, corpus: { kind: string; doc: Record<string, unknown> }[]): Uint8Array {
  switch (Math.floor(r() * 7)) {
    case 6:
      return cose(r);
    case 0:
      return new Uint8Array(0);
    case 1:
      return Uint8Array.from({ length: Math.floor(r() * 600) }, () => Math.floor(r() * 256));
    case 2:
      return enc.encode(
        JSON.stringify(
          pick(r, [
            { answer: 'x' },
            { answer_sha256: '0'.repeat(64) },
            { leaf: 'zz' },
            { answer: 'x', tree_size: -1 },
            { answer: 'x', leaf: '0' },
            [],
            null,
            1,
            '"s"',
            { answer: '\uD800' },
          ]),
        ),
      );
    default: {
      const { kind, doc } = pick(r, corpus);
      const m = mutate(doc, r, kind);
      if (m.input instanceof Uint8Array) return m.input;
      try {
        return enc.encode(typeof m.input === 'string' ? m.input : JSON.stringify(m.input));
      } catch {
        return enc.encode('[]');
      }
    }
  }
}

function chunked(body: Uint8Array, r: () => number): { parts: (string | Uint8Array)[]; complete: boolean; name: string } {
  const how = Math.floor(r() * 6);
  const size = body.length.toString(16);
  switch (how) {
    case 0:
      return { parts: [`${size}\r\n`, body, '\r\n0\r\n\r\n'], complete: true, name: 'chunked' };
    case 1:
      return { parts: [`${size};ext=1\r\n`, body, '\r\n0\r\nTrailer: x\r\n\r\n'], complete: true, name: 'chunked+ext+trailer' };
    case 2:
      return { parts: [`zz\r\n`, body, '\r\n0\r\n\r\n'], complete: true, name: 'chunked bad size' };
    case 3:
      return { parts: [`${(body.length + 5).toString(16)}\r\n`, body, '\r\n0\r\n\r\n'], complete: false, name: 'chunked short' };
    case 4:
      return { parts: [`${size}\r\n`, body], complete: false, name: 'chunked unterminated' };
    default:
      return { parts: ['FFFFFFFFFFFFFFFF\r\n', body, '\r\n0\r\n\r\n'], complete: false, name: 'chunked huge size' };
  }
}

/** One random request, the same for the same PRNG state. */
export function randomCase(r: () => number, corpus: { kind: string; doc: Record<string, unknown> }[]): HttpCase {
  const method = r() < 0.75 ? pick(r, ['GET', 'POST', 'POST', 'HEAD']) : pick(r, METHODS);
  let target = r() < 0.85 ? pick(r, ROUTES) : pick(r, ODD_TARGETS);
  if (r() < 0.2) target += (target.includes('?') ? '&' : '?') + pick(r, ODD_QUERIES);
  const version = r() < 0.9 ? 'HTTP/1.1' : pick(r, VERSIONS);
  const headers = ['Host: 127.0.0.1', 'Connection: close'];
  if (r() < 0.3) headers.push(pick(r, ODD_HEADERS));
  const body = method === 'GET' && r() < 0.8 ? new Uint8Array(0) : bodyFor(r, corpus);
  let parts: (string | Uint8Array)[];
  let complete = true;
  let name = `${method.slice(0, 12)} ${target.slice(0, 60)}`;
  const framing = Math.floor(r() * 10);
  if (framing < 6) {
    headers.push(`Content-Length: ${body.length}`, 'Content-Type: application/json');
    parts = [`${method} ${target} ${version}\r\n${headers.join('\r\n')}\r\n\r\n`, body];
  } else if (framing < 8) {
    const c = chunked(body, r);
    headers.push('Transfer-Encoding: chunked');
    parts = [`${method} ${target} ${version}\r\n${headers.join('\r\n')}\r\n\r\n`, ...c.parts];
    complete = c.complete;
    name += ` ${c.name}`;
  } else if (framing === 8) {
    // Conflicting framing: request smuggling attempts must be refused, not guessed.
    headers.push(`Content-Length: ${body.length}`, 'Transfer-Encoding: chunked', `Content-Length: ${body.length + 1}`);
    parts = [`${method} ${target} ${version}\r\n${headers.join('\r\n')}\r\n\r\n`, body];
    name += ' CL+TE';
    complete = false;
  } else {
    const declared = pick(r, [-1, body.length + 10, body.length - 1, 'abc', '1e3', '0x10', '']);
    headers.push(`Content-Length: ${declared}`);
    parts = [`${method} ${target} ${version}\r\n${headers.join('\r\n')}\r\n\r\n`, body];
    complete = typeof declared === 'number' && declared >= 0 && declared <= body.length;
    if (typeof declared !== 'number' || declared < 0) complete = true; // refused outright with 400
    name += ` CL=${String(declared)}`;
  }
  if (r() < 0.05) {
    // Byte by byte, or split mid-header, so incremental parsing is exercised too.
    const whole = Buffer.concat(parts.map((p) => (typeof p === 'string' ? Buffer.from(p, 'latin1') : Buffer.from(p))));
    const cut = Math.floor(r() * whole.length);
    parts = [whole.subarray(0, cut), whole.subarray(cut)];
  }
  return { name, parts, complete, head: method === 'HEAD' };
}

/** The fixed corpus: every hostile request that once broke the service, run first every time. */
export function fixedCases(): HttpCase[] {
  const simple = (name: string, line: string, extra = '', head = false): HttpCase => ({
    name,
    parts: [`${line}\r\nHost: x\r\nConnection: close\r\n${extra}\r\n`],
    complete: true,
    head,
  });
  const cases: HttpCase[] = [];
  for (const t of ['//', '//[', 'http://[', '//a:99999', 'http://a:99999/', '*']) cases.push(simple(`target ${t}`, `GET ${t} HTTP/1.1`));
  cases.push(
    simple('HEAD cbom', 'HEAD /api/cbom HTTP/1.1', '', true),
    simple('HEAD ledger', 'HEAD /api/transparency/ledger HTTP/1.1', '', true),
  );
  cases.push(simple('413 by declared length', 'POST /api/v1/verify HTTP/1.1', 'Content-Length: 3000000\r\n'));
  cases.push(simple('negative length', 'POST /api/v1/verify HTTP/1.1', 'Content-Length: -5\r\n'));
  cases.push(simple('two lengths', 'POST /api/v1/verify HTTP/1.1', 'Content-Length: 2\r\nContent-Length: 3\r\n'));
  cases.push(simple('TE and CL', 'POST /api/v1/verify HTTP/1.1', 'Transfer-Encoding: chunked\r\nContent-Length: 3\r\n'));
  cases.push(simple('TE gzip', 'POST /api/v1/verify HTTP/1.1', 'Transfer-Encoding: gzip\r\n'));
  cases.push(simple('huge header', 'GET /api/cbom HTTP/1.1', `X-Big: ${'b'.repeat(70_000)}\r\n`));
  cases.push(simple('long target', `GET /${'a'.repeat(70_000)} HTTP/1.1`));
  const deepBody = (n: number) => `{"kind":"svc-run","run":${'{"a":'.repeat(n)}0${'}'.repeat(n)}}`;
  for (const n of [2_000, 100_000]) {
    const b = deepBody(n);
    cases.push({
      name: `evidence ${n} deep`,
      parts: [`POST /api/v1/evidence HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Length: ${b.length}\r\n\r\n`, b],
      complete: true,
    });
  }
  const lone = JSON.stringify({ answer: '\uD800' }).replace('\\ud800', '\\uD800');
  cases.push({
    name: 'inclusion lone surrogate',
    parts: [
      `POST /api/transparency/ledger/inclusion HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Length: ${lone.length}\r\n\r\n`,
      lone,
    ],
    complete: true,
  });
  cases.push({
    name: 'pipelined',
    parts: ['GET /api/cbom HTTP/1.1\r\nHost: x\r\n\r\nGET // HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n'],
    complete: true,
  });
  cases.push({
    name: 'invalid utf-8 body',
    parts: [
      'POST /api/v1/verify HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Length: 4\r\n\r\n',
      new Uint8Array([0x22, 0xff, 0xfe, 0x22]),
    ],
    complete: true,
  });
  return cases;
}

/**
 * 503 is documented for the council probe, the ledger (damaged or withheld storage) and overload;
 * 501 for a transfer coding other than chunked (only the adapter answers it).
 */
export function statusOk(c: HttpCase, status: number): boolean {
  if (status < 500 || status === 501) return true;
  // 503 is documented where the ledger (or the council probe, or the pool) is unavailable: the SCITT
  // entries read the ledger as the transparency routes do. Judged by the request's own target, not
  // the case's name: a fixed case named "HEAD ledger" got the ledger's 503 while it was opening.
  const first = c.parts[0];
  const head = typeof first === 'string' ? first : new TextDecoder().decode(first);
  const target = head.split('\r\n')[0]!.split(' ')[1] ?? '';
  const where = `${c.name} ${target}`;
  return (
    status === 503 &&
    (where.includes('/api/status/council') ||
      where.includes('/api/transparency/') ||
      where.includes('/api/v1/') ||
      where.includes('/entries'))
  );
}

/** Run cases against a server on `port`; `alive` says whether the server process still runs. */
export async function runHttpFuzz(o: {
  port: number;
  seed: number;
  cases?: number;
  stop?: () => boolean;
  alive?: () => boolean;
  fixed?: boolean;
}): Promise<HttpFuzzStats> {
  const r = prng(o.seed);
  const corpus = fuzzCorpus(o.seed, undefined, undefined, 2) as unknown as { kind: string; doc: Record<string, unknown> }[];
  const stats: HttpFuzzStats = { cases: 0, statuses: {}, findings: [] };
  const fixed = o.fixed === false ? [] : fixedCases();
  for (let i = 0; o.cases === undefined || i < o.cases + fixed.length; i++) {
    if (o.stop?.() && i >= fixed.length) break;
    const c = i < fixed.length ? fixed[i]! : randomCase(r, corpus);
    const res = await rawRequest(o.port, c.parts, { timeoutMs: c.complete ? 10_000 : 300, head: c.head });
    stats.cases++;
    if (res.status !== null) {
      stats.statuses[res.status] = (stats.statuses[res.status] ?? 0) + 1;
      if (!statusOk(c, res.status)) stats.findings.push({ kind: '5xx', case: c.name, detail: res.text.slice(0, 300) });
    } else {
      stats.statuses.none = (stats.statuses.none ?? 0) + 1;
      if (c.complete && res.timedOut) stats.findings.push({ kind: 'hang', case: c.name, detail: 'no answer within 10 s' });
    }
    if (o.alive && !o.alive()) {
      stats.findings.push({ kind: 'dead', case: c.name, detail: 'the server process exited' });
      break;
    }
    // Every 25 cases, and after the fixed corpus, a plain request must still be answered.
    if (i % 25 === 24 || i === fixed.length - 1) {
      const probe = await rawRequest(o.port, 'GET /api/provenance/pubkey HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n', {
        timeoutMs: 10_000,
      });
      if (probe.status !== 200) stats.findings.push({ kind: 'dead', case: c.name, detail: `probe answered ${probe.status}` });
    }
  }
  return stats;
}

export interface StallWave {
  uploads: number;
  /** First status line of each answer (none: the connection closed without one). */
  statuses: Record<string, number>;
}

/**
 * `n` uploads from `n` distinct loopback addresses (127.1.x.y, each within any per-address limit),
 * each declaring `declared` bytes and stalling after `sent`: what a thousand slow clients hold.
 * Resolves once every connection has closed, or after `timeoutMs`.
 */
export async function stallWave(port: number, n: number, declared = 2_000_000, sent = 1_999_999, timeoutMs = 30_000): Promise<StallWave> {
  const { connect } = await import('node:net');
  const statuses: Record<string, number> = {};
  const chunk = new Uint8Array(sent).fill(0x20);
  await Promise.all(
    Array.from(
      { length: n },
      (_, i) =>
        new Promise<void>((resolve) => {
          let text = '';
          const localAddress = `127.1.${(i >> 8) & 255}.${i & 255 || 1}`;
          const sock = connect({ port, host: '127.0.0.1', localAddress }, () => {
            sock.write(`POST /api/v1/verify HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${declared}\r\n\r\n`);
            sock.write(chunk);
          });
          const timer = setTimeout(() => sock.destroy(), timeoutMs);
          sock.on('data', (c) => (text += c.toString('latin1')));
          sock.on('error', () => undefined);
          sock.on('close', () => {
            clearTimeout(timer);
            const s = /^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 'none';
            statuses[s] = (statuses[s] ?? 0) + 1;
            resolve();
          });
        }),
    ),
  );
  return { uploads: n, statuses };
}
