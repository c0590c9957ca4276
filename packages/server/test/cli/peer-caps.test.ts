// Every read of a peer's answer is capped at the largest valid answer of its kind, within a deadline
// that covers the body (#30 row 4): a hostile tile source sending an endless tile, a keys URL
// sending an endless document. Nothing past the cap is read or held.
import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PEER_CAPS, readCapped, tileFetcher } from '../../src/internal.js';
import { fetchJson } from '../../src/cli/common.js';

let server: Server;
let base = '';
let sent = 0;
beforeAll(async () => {
  server = createServer((_req, res) => {
    const chunk = Buffer.alloc(64 * 1024, 0x41);
    res.writeHead(200, { 'content-type': 'application/octet-stream' });
    // An endless body (300 MB if it were read): written as long as the client reads.
    const pump = () => {
      while (sent < 300 * 1024 * 1024) {
        sent += chunk.length;
        if (!res.write(chunk)) return void res.once('drain', pump);
      }
      res.end();
    };
    pump();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
});
afterAll(() => {
  server.closeAllConnections();
  return new Promise<void>((r) => server.close(() => r()));
});

describe('reads from peers are capped', () => {
  it('a tile source answering an endless tile: refused past the largest valid tile, having read little', async () => {
    sent = 0;
    const fetchTile = tileFetcher(`${base}/log/`);
    await expect(fetchTile('tile/0/000')).rejects.toThrow(new RegExp(`more than ${PEER_CAPS.tile} bytes`));
    await new Promise((r) => setTimeout(r, 200));
    expect(sent).toBeLessThan(16 * 1024 * 1024);
    sent = 0;
    await expect(fetchTile('checkpoint')).rejects.toThrow(new RegExp(`more than ${PEER_CAPS.checkpoint} bytes`));
  });

  it('a keys URL answering an endless document: refused past the cap', async () => {
    sent = 0;
    await expect(fetchJson(`${base}/api/provenance/pubkey`)).rejects.toThrow(/more than \d+ bytes/);
    await new Promise((r) => setTimeout(r, 200));
    expect(sent).toBeLessThan(64 * 1024 * 1024);
  });
});

describe('the deadline covers the body by itself', () => {
  // A body that sends a first piece and then nothing, given as a Response no fetch made: only
  // readCapped's own hold on the signal can end the read (a fetch's following of its signal over
  // the body is not relied on: net/peer.ts says why).
  const silentAfterFirst = () =>
    new Response(
      new ReadableStream<Uint8Array>({
        start(c) {
          c.enqueue(new Uint8Array([0x7b]));
        },
      }),
    );
  const settled = (p: Promise<unknown>) =>
    Promise.race([
      p.then(
        () => 'resolved',
        (e: Error) => `rejected: ${e.name}`,
      ),
      // One generous bound, reported: the deadline under test is 50 ms.
      new Promise((r) => setTimeout(() => r('still reading after 20 s'), 20_000)),
    ]);

  it('a peer silent after its first bytes: the read is refused with the deadline, never left pending or taken as whole', async () => {
    const ctl = new AbortController();
    const read = readCapped(silentAfterFirst(), PEER_CAPS.json, 'http://peer.test/', ctl.signal);
    setTimeout(() => ctl.abort(new DOMException('deadline', 'TimeoutError')), 50);
    expect(await settled(read)).toBe('rejected: TimeoutError');
  });

  it('a deadline already passed when the body is read: refused at once, the body cancelled', async () => {
    const res = silentAfterFirst();
    const signal = AbortSignal.abort(new DOMException('deadline', 'TimeoutError'));
    expect(await settled(readCapped(res, PEER_CAPS.json, 'http://peer.test/', signal))).toBe('rejected: TimeoutError');
    expect(res.bodyUsed || res.body?.locked).toBe(true);
  });

  it('an answer that ends before the deadline is read whole', async () => {
    const ctl = new AbortController();
    const bytes = await readCapped(new Response('{"ok":true}'), PEER_CAPS.json, 'http://peer.test/', ctl.signal);
    expect(new TextDecoder().decode(bytes)).toBe('{"ok":true}');
  });
});
