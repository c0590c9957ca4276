// Core overhead of verifyBundle on the bench's proof: the whole call vs the signature alone.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Issuer, Keyring, ensureKeys, loadConfig } from '/work/main/packages/server/dist/internal.js';
import { nativeCrypto } from '/work/main/packages/server/dist/index.js';
import { namesFor, verifyBundle, nobleBackend } from '@svc/core';

const dir = mkdtempSync(join(tmpdir(), 'vb-'));
const cfg = loadConfig({ SVC_DATA_DIR: dir });
const ring = ensureKeys(cfg, () => {});
const bundle = await new Issuer(Keyring.load(join(dir, 'keys')).ring ?? ring, namesFor('svc'), null, { bridge: false }).issue({ answer: 'Benchmark answer. '.repeat(10) });
const body = new TextEncoder().encode(JSON.stringify(bundle));
console.log('body bytes', body.length);
const native = nativeCrypto();
let calls = 0;
const stub = { name: 'stub', algorithms: native.algorithms, sync: true, verify: (...a) => { calls++; return true; } };
const N = Number(process.argv[2] ?? 3000);
async function time(label, crypto) {
  for (let i = 0; i < 200; i++) await verifyBundle(body, { crypto, service: 'svc', trustedKeys: [] });
  const t = performance.now();
  for (let i = 0; i < N; i++) await verifyBundle(body, { crypto, service: 'svc', trustedKeys: [] });
  const us = ((performance.now() - t) / N) * 1000;
  console.log(label, us.toFixed(1), 'us/call');
  return us;
}
const r = await verifyBundle(body, { crypto: native, service: 'svc', trustedKeys: [] });
console.log('overallOk', r.overallOk);
calls = 0; await verifyBundle(body, { crypto: stub, service: 'svc', trustedKeys: [] }); console.log('signature calls per verify', calls);
for (let k = 0; k < 2; k++) { await time('stub (core overhead)', stub); await time('native (whole)', native); }
console.log('verdict json bytes', JSON.stringify(r).length, Object.keys(r));
