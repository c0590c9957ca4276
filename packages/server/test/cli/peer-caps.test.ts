// Every read of a peer's answer is capped at the largest valid answer of its kind, within a deadline
// that covers the body (#30 row 4): a hostile tile source sending an endless tile, a keys URL
// sending an endless document. Nothing past the cap is read or held.
import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PEER_CAPS, tileFetcher } from '../../src/internal.js';
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
