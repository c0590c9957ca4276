// Round five, row 12: a connection that pipelines requests and never reads its answers makes the
// server hold at most the pipelining bound, whatever arrives in one chunk. Node parses a whole
// received chunk before the app can act; the listener now hands its parser one request head at a
// time, so the bound stops the parsing itself. The slicing must change nothing a reading client sees.
import { createHash } from 'node:crypto';
import type { Server } from 'node:http';
import { connect, type Socket } from 'node:net';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AppRequest, listen, MAX_PIPELINED, nextHeaderEnd, publicServer } from '../../src/internal.js';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;
const heapMb = () => {
  gc();
  return process.memoryUsage().heapUsed / 1e6;
};

let server: Server;
let port = 0;
/** Requests Node's parser made (before the app saw them: the pipelining bound's refusals too). */
let parsed = 0;
const serverSockets = new Set<Socket>();
const cfg = { bodyMs: 10_000, bodyBudgetBytes: 64 * 1024 * 1024, trustedProxies: [], sendMs: 2000, connectionsPerIp: 0 };

// Answers name what they were asked: method, path, the body's SHA-256; /big answers 256 KiB.
async function handle(req: AppRequest) {
  const body = req.method === 'POST' ? await req.body() : new Uint8Array();
  if (req.path === '/big') return { status: 200, body: 'x'.repeat(256 * 1024) };
  return { status: 200, body: `${req.method} ${req.path} ${createHash('sha256').update(body).digest('hex')}\n` };
}

beforeAll(async () => {
  server = publicServer(cfg, handle, () => {});
  server.prependListener('request', () => void parsed++);
  server.on('connection', (s) => {
    serverSockets.add(s);
    s.once('close', () => serverSockets.delete(s));
  });
  port = Number(new URL(await listen(server, '127.0.0.1', 0)).port);
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

function open(localAddress = '127.0.0.1'): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const s = connect({ port, host: '127.0.0.1', localAddress }, () => resolve(s));
    s.on('error', reject);
  });
}
/** Everything the server sends on one connection until it has `n` answers or closes. */
function readAll(s: Socket, until: (text: string) => boolean): Promise<string> {
  return new Promise((resolve) => {
    let text = '';
    s.on('data', (c) => {
      text += c.toString('latin1');
      if (until(text)) resolve(text);
    });
    s.on('close', () => resolve(text));
  });
}
const answers = (text: string) => [...text.matchAll(/\r\n\r\n([A-Z]+ \/\S* [0-9a-f]{64})\n/g)].map((m) => m[1]);

describe('pipelined requests are parsed one head at a time', () => {
  it('the end of a head: LF LF or LF CR LF, after the offset given', () => {
    const t = (s: string, from = 0) => nextHeaderEnd(new TextEncoder().encode(s), from);
    expect(t('GET / HTTP/1.1\r\nh: x\r\n\r\nGET')).toBe(24);
    expect(t('GET / HTTP/1.1\nh: x\n\nGET')).toBe(21);
    expect(t('GET / HTTP/1.1\r\nh: x\r\n')).toBe(22);
    expect(t('a\n\nb\n\nc', 3)).toBe(6);
    expect(t('')).toBe(0);
  });

  it('200 connections from ten addresses, each pipelining 1,000 requests in one write and never reading: at most the bound is parsed on each, and the heap comes back', async () => {
    const burst = 'GET /healthz HTTP/1.1\r\nhost: x\r\n\r\n'.repeat(1000);
    const before = heapMb();
    const parsedBefore = parsed;
    const socks = await Promise.all(Array.from({ length: 200 }, (_, i) => open(`127.0.2.${1 + (i % 10)}`)));
    for (const s of socks) {
      s.pause(); // never read
      s.on('error', () => {});
      s.write(burst);
    }
    // A reader on its own connection is still answered.
    const other = await open();
    other.write('GET /healthz HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n');
    expect(answers(await readAll(other, () => false))).toHaveLength(1);
    // The server ends each (the bound, or the send deadline): its side of every one closes.
    while (serverSockets.size > 0) await new Promise((r) => setTimeout(r, 50));
    for (const s of socks) s.destroy();
    // Without the slicing Node parsed all 200,000 (and the app answered the first 16 of each).
    const made = parsed - parsedBefore - 1;
    expect(made).toBeLessThanOrEqual(200 * (MAX_PIPELINED + 1));
    expect(heapMb() - before).toBeLessThan(20);
  }, 60_000);

  it('property: requests pipelined in any split (bodies with blank lines and request lines in them) are answered in order, each as asked', async () => {
    const body = fc.oneof(
      fc.constant(''),
      fc.constantFrom('\n\n', '\r\n\r\n', 'a\n\r\nb', 'GET / HTTP/1.1\r\n\r\n'),
      fc.string({ maxLength: 300 }),
      fc.uint8Array({ maxLength: 3000 }).map((b) => Buffer.from(b).toString('latin1')),
    );
    const request = fc.record({ post: fc.boolean(), path: fc.constantFrom('/a', '/b/c', '/healthz'), body });
    await fc.assert(
      fc.asyncProperty(
        fc.array(request, { minLength: 1, maxLength: MAX_PIPELINED - 2 }),
        fc.array(fc.nat(), { maxLength: 8 }),
        async (reqs, cuts) => {
          const wire = Buffer.concat(
            reqs.map((r) => {
              const b = Buffer.from(r.body, 'latin1');
              const e = '\r\n';
              const head = r.post
                ? `POST ${r.path} HTTP/1.1${e}host: x${e}content-length: ${b.length}${e}${e}`
                : `GET ${r.path} HTTP/1.1${e}host: x${e}${e}`;
              return Buffer.concat([Buffer.from(head, 'latin1'), r.post ? b : Buffer.alloc(0)]);
            }),
          );
          const want = reqs.map((r) => {
            const b = r.post ? Buffer.from(r.body, 'latin1') : Buffer.alloc(0);
            return `${r.post ? 'POST' : 'GET'} ${r.path} ${createHash('sha256').update(b).digest('hex')}`;
          });
          const s = await open();
          const got = readAll(s, (t) => answers(t).length >= reqs.length);
          const at = [...new Set(cuts.map((c) => c % (wire.length + 1)))].sort((a, b) => a - b);
          let from = 0;
          for (const c of [...at, wire.length]) {
            s.write(wire.subarray(from, c));
            from = c;
            await new Promise((r) => setImmediate(r));
          }
          expect(answers(await got)).toEqual(want);
          s.destroy();
        },
      ),
      { numRuns: 60 },
    );
  }, 60_000);

  it('a connection Node pauses (answers larger than its buffer, read late) gets the rest of its chunk parsed once it resumes, in order', async () => {
    const s = await open();
    s.pause();
    s.write('GET /big HTTP/1.1\r\nhost: x\r\n\r\n'.repeat(6) + 'GET /after HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n');
    await new Promise((r) => setTimeout(r, 300));
    const reading = readAll(s, () => false);
    s.resume();
    const text = await reading;
    expect(text.match(/HTTP\/1\.1 200/g)).toHaveLength(7);
    expect(answers(text)).toEqual([`GET /after ${createHash('sha256').digest('hex')}`]);
  }, 30_000);
});
