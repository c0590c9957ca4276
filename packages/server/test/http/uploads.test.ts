// Bodies held in memory across connections are bounded: uploads that stall hold only what they
// sent, only until the request deadline, and past the shared budget new uploads are answered 503
// with Retry-After at once instead of growing the process.
import { afterEach, describe, expect, it } from 'vitest';
import { connect, type Socket } from 'node:net';
import { Readable } from 'node:stream';
import { issueProof } from '@svc/core/issue';
import { testKeys } from '@svc/core/testing';
import { BodyBudget, readLimited } from '../../src/internal.js';
import { boot, call, type Booted } from '../support/harness.js';
import { rawRequest } from '../support/rawhttp.js';

const plain = issueProof({ answer: 'an upload', model: 'm', ts: 1 }, { receipt: testKeys('uploads').answer });
const servers: Booted[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await s.stop();
});

describe('BodyBudget with readLimited', () => {
  it('chunks are held while they fit; the one that does not is a 503 with Retry-After, and what was held is counted', async () => {
    const b = new BodyBudget(250);
    let held = 0;
    const hold = { fits: (n: number) => b.fits(n), take: (n: number) => b.take(n) && ((held += n), true) };
    const body = Readable.from([new Uint8Array(100), new Uint8Array(100), new Uint8Array(100)]);
    await expect(readLimited(body, undefined, 1000, hold)).rejects.toMatchObject({ code: 'unavailable', status: 503, retryAfter: 1 });
    expect(held).toBe(200);
    expect(b.held).toBe(200);
    // A declared length that cannot fit is refused before a byte is read.
    await expect(readLimited(Readable.from([new Uint8Array(10)]), '60', 1000, hold)).rejects.toMatchObject({ code: 'unavailable' });
    b.release(200);
    await expect(readLimited(Readable.from([new Uint8Array(100)]), '100', 1000, hold)).resolves.toHaveLength(100);
  });
});

/** Start an upload that declares `declared` bytes, send `sent` of them, and stall. */
function stall(port: number, declared: number, sent: number): Promise<{ sock: Socket; answer: Promise<string> }> {
  return new Promise((resolve) => {
    const sock = connect(port, '127.0.0.1', () => {
      sock.write(`POST /api/v1/verify HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${declared}\r\n\r\n`);
      sock.write(new Uint8Array(sent).fill(0x20));
      setTimeout(() => resolve({ sock, answer }), 50);
    });
    let text = '';
    sock.on('data', (c) => (text += c.toString('latin1')));
    sock.on('error', () => undefined);
    const answer = new Promise<string>((r) => sock.on('close', () => r(text)));
  });
}

describe('stalled uploads against the server', () => {
  it('past the budget: 503 with Retry-After at once; at the deadline the stalled ones get 408 and the budget is free again', async () => {
    const s = await boot({ rate: { verify: 0, read: 0, modelKeys: 0, tiles: 0 }, bodyBudgetBytes: 1_000_000, bodyMs: 1_500 });
    servers.push(s);
    const port = Number(new URL(s.url).port);
    // A declared length that could never fit is refused at once.
    const never = await stall(port, 1_500_000, 10);
    expect(await never.answer).toMatch(/^HTTP\/1\.1 503/);
    // Three uploads hold 900,000 bytes of the 1,000,000 between them.
    const stalled = await Promise.all([0, 1, 2].map(() => stall(port, 400_000, 300_000)));
    const body = JSON.stringify(plain);
    const t0 = performance.now();
    const refused = await rawRequest(
      port,
      `POST /api/v1/verify HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 200000\r\n\r\n${' '.repeat(1000)}`,
    );
    expect(refused.status).toBe(503);
    expect(refused.text).toMatch(/\r\nretry-after: 1\r\n/i);
    expect(performance.now() - t0).toBeLessThan(1_000);
    // A small body still fits and is verified.
    expect((await call(s.url, '/api/v1/verify', { json: plain })).status).toBe(200);
    // The deadline ends the stalled uploads (408) and gives their bytes back.
    const answers = await Promise.all(stalled.map((x) => x.answer));
    for (const a of answers) expect(a).toMatch(/^HTTP\/1\.1 408/);
    const big = { ...plain, padding: ' '.repeat(900_000 - body.length) };
    const r = await call(s.url, '/api/v1/verify', { json: big });
    expect(r.status).toBe(200);
  });
});
