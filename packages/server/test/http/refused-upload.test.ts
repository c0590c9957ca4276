// An upload refused for its size is answered 413 that a client in another process can read, and the
// connection is closed without a reset. In one process the client's writes and the server's close
// take turns on one event loop, so hostile-http's in-process 413 tests never met the reset that
// `svc serve` sent 35 times in 40 (node:http destroyed the socket with the body's rest unread).
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Cluster, serveCluster } from '../support/cluster.js';

let c: Cluster;
let url: string;
let port: number;

beforeAll(async () => {
  c = await serveCluster({ SVC_RATE_VERIFY: '0' });
  url = c.base;
  port = c.port;
}, 60_000);
afterAll(async () => {
  c.child.kill('SIGTERM');
  await c.exited;
});

const post = async (bytes: number): Promise<string | number> => {
  try {
    const r = await fetch(`${url}/api/v1/verify`, {
      method: 'POST',
      body: new Uint8Array(bytes),
      headers: { 'content-type': 'application/json' },
    });
    await r.text();
    return r.status;
  } catch (e) {
    return String((e as { cause?: { code?: string } }).cause?.code ?? e);
  }
};

describe('a refused upload from another process', () => {
  it('20 fetches of 3 MiB each read their 413 (none sees EPIPE or a reset)', async () => {
    const got: Array<string | number> = [];
    for (let i = 0; i < 20; i++) got.push(await post(3 * 2 ** 20));
    expect(got).toEqual(Array(20).fill(413));
  }, 60_000);

  it('the server half-closes after its 413 and reads on: the rest of the body is accepted, then a clean close', async () => {
    const total = 3 * 2 ** 20;
    const result = await new Promise<{ answer: string; endedEarly: boolean; error: string | null }>((resolve) => {
      // allowHalfOpen: the server's FIN must not end this side too, or there is no slow upload to test.
      const s = connect({ port, host: '127.0.0.1', allowHalfOpen: true });
      let answer = '';
      let ended = false;
      let endedEarly = false;
      let error: string | null = null;
      s.on('data', (c) => (answer += c.toString('latin1')));
      s.on('end', () => (ended = true));
      s.on('error', (e) => (error = (e as NodeJS.ErrnoException).code ?? e.message));
      s.on('close', () => resolve({ answer, endedEarly, error }));
      s.write(`POST /api/v1/verify HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\ncontent-length: ${total}\r\n\r\n`);
      // Wait for the answer and the server's FIN before sending the body, as a slow uploader would.
      const wait = setInterval(() => {
        if (!ended) return;
        clearInterval(wait);
        endedEarly = true;
        const chunk = Buffer.alloc(64 * 1024);
        let sent = 0;
        const more = () => {
          while (sent < total) {
            sent += chunk.length;
            if (!s.write(chunk)) return void s.once('drain', more);
          }
          s.end();
        };
        more();
      }, 20);
    });
    expect(result.answer).toMatch(/^HTTP\/1\.1 413 /);
    expect(result.answer.toLowerCase()).toContain('connection: close');
    expect(result.endedEarly).toBe(true);
    expect(result.error).toBeNull();
  }, 30_000);

  it('past the drain bound (8 MiB) the connection is cut, and the server still serves', async () => {
    const r = await post(24 * 2 ** 20);
    expect([413, 'EPIPE', 'ECONNRESET', 'UND_ERR_SOCKET']).toContain(r);
    expect((await fetch(`${url}/healthz`)).status).toBe(200);
  }, 30_000);
});
