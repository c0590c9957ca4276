// The packed server's app served by a runtime's own HTTP server: Bun.serve under Bun, Deno.serve
// under Deno (#54 part 4). The parts are assembled with no ledger (the embedded store needs
// node:sqlite, Node's own), then read over loopback as any client would: /healthz, the published
// keys, a verification of a vector bundle, a 404 and a body over 2 MB. Prints one line, SERVE
// followed by what each answered.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { assembleServer, loadConfig } from '@svc/server';
import vectors from './vectors.mjs';

const dir = mkdtempSync(join(tmpdir(), 'svc-serve-'));
const parts = await assembleServer(loadConfig({ SVC_DATA_DIR: dir, SVC_LEDGER: '0', SVC_LOG: '0', SVC_WORKERS: '1' }));
let base;
let stop;
if (globalThis.Bun) {
  const server = Bun.serve({
    port: 0,
    hostname: '127.0.0.1',
    fetch: (req, s) => parts.app.fetch(req, { remoteAddress: s.requestIP(req)?.address }),
  });
  base = `http://127.0.0.1:${server.port}`;
  stop = () => server.stop(true);
} else if (globalThis.Deno) {
  const server = Deno.serve({ port: 0, hostname: '127.0.0.1', onListen() {} }, (req, info) =>
    parts.app.fetch(req, { remoteAddress: info.remoteAddr.hostname }),
  );
  base = `http://127.0.0.1:${server.addr.port}`;
  stop = () => server.shutdown();
} else throw new Error('neither Bun nor Deno');

const out = {};
try {
  out.health = (await fetch(`${base}/healthz`)).status;
  const keys = await fetch(`${base}/api/provenance/pubkey`);
  out.keys = keys.status === 200 && Array.isArray((await keys.json()).keys);
  const plain = vectors.find((c) => c.description === 'plain answer, pinned key: passes and is recognised');
  const v = await fetch(`${base}/api/v1/verify`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(plain.input),
  });
  out.verify = v.status === 200 && (await v.json()).verdict.overallOk === true;
  out.missing = (await fetch(`${base}/no/such/endpoint`)).status;
  out.tooLarge = (await fetch(`${base}/api/v1/verify`, { method: 'POST', body: new Uint8Array(2 * 1024 * 1024 + 1) })).status;
  out.nosniff = (await fetch(`${base}/healthz`)).headers.get('x-content-type-options');
} finally {
  await stop();
  await parts.close();
}
console.log(`SERVE ${JSON.stringify(out)}`);
