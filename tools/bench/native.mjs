// Benchmarks on Node 24 (run by bench/run.mjs): the native node:crypto path against raw node:crypto
// verifies measured in the same run, endpoint throughput on 2 cores, and issuing with the native
// signer against noble. Ratios, fixed seeds.
import { createHash, createPublicKey, verify as nodeVerify } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { nobleBackend, verifyBundle, namesFor } from '@svc/core';
import { fromHex, utf8 } from '@svc/core/primitives';
import { issueProof, receiptMessage, signTreeHead } from '@svc/core/issue';
import { testKeys } from '@svc/core/testing';
import {
  Issuer,
  Keyring,
  Ledger,
  MemoryHighWater,
  SqliteStore,
  ensureKeys,
  loadConfig,
  nodeCryptoBackend,
} from '../../packages/server/dist/internal.js';
import { compare, line, machine, perOp } from './util.mjs';
import { serverBench } from './server.mjs';

const quick = process.argv.includes('--quick');
console.log(`runtime: Node ${process.version} (OpenSSL ${process.versions.openssl})`);
const native = nodeCryptoBackend();
if (!native) throw new Error('node:crypto has no ML-DSA-87 here');
const K = testKeys('bench-2026');

console.log('\n== core, native');
const bundle = issueProof(
  { answer: 'The quick brown fox jumps over the lazy dog. '.repeat(20), model: 'bench', ts: 1_767_225_600 },
  { receipt: K.answer },
);
const pkBytes = fromHex(bundle.receiptKey.public_key_hex);
const key = createPublicKey({ key: Buffer.from(pkBytes), format: 'raw-public', asymmetricKeyType: 'ml-dsa-87' });
const sig = fromHex(bundle.receipt.sig);
const msg = receiptMessage(bundle.receipt);
const context = utf8('svc-provenance-v1');
const raw = () => {
  if (!nodeVerify(null, msg, { key, context }, sig)) throw new Error('raw native verify failed');
};
const opts = { trustedKeys: K.trustedKeys, crypto: native };
const full = async () => {
  if (!(await verifyBundle(bundle, opts)).verdict.overallOk) throw new Error('bundle failed');
};
const { a: rawMs, b: fullMs } = await compare(raw, full, { n: 200, pairs: 7 });
line('raw node:crypto ML-DSA-87 verify (baseline)', `${rawMs.toFixed(4)} ms`);
line('verifyBundle with the node:crypto backend', `${fullMs.toFixed(4)} ms`);
line('ratio verifyBundle / raw native verify', (fullMs / rawMs).toFixed(3), '<= 1.15');
const nobleMs = await perOp(() => verifyBundle(bundle, { trustedKeys: K.trustedKeys, crypto: nobleBackend }), { n: 20 });
line('verifyBundle with noble on the same runtime', `${nobleMs.toFixed(3)} ms (${(nobleMs / fullMs).toFixed(1)}x native)`);

console.log('\n== server, native (2 worker threads)');
await serverBench(rawMs, {
  rawLabel: 'raw node:crypto ML-DSA-87 verifies/s on one core (baseline)',
  goal: '>= 1.5; 523 req/s with noble before',
});

console.log('\n== issuing, native signer against noble');
const dir = mkdtempSync(join(tmpdir(), 'svc-bench-native-'));
try {
  const cfg = loadConfig({ SVC_DATA_DIR: dir });
  ensureKeys(cfg, () => {});
  const ring = Keyring.load(join(dir, 'keys')).ring;
  const names = namesFor('svc');
  const body = { log: 'svc-ledger', tree_size: 1000, root_hash: '00'.repeat(32), timestamp: 1_767_225_600_000 };
  const headNoble = await perOp(() => signTreeHead(body, K.sth, { service: 'svc' }), { n: 10 });
  const headNative = await perOp(() => signTreeHead(body, K.sth, { service: 'svc', crypto: native }), { n: 50 });
  line(
    'tree head signature: noble / node:crypto',
    `${headNoble.toFixed(2)} ms / ${headNative.toFixed(2)} ms (${(headNoble / headNative).toFixed(1)}x)`,
  );
  line(
    'head signing cost per leaf at 1,000 leaves per batch: noble / native',
    `${((headNoble * 1000) / 1000).toFixed(2)} us / ${((headNative * 1000) / 1000).toFixed(2)} us`,
  );
  const rates = {};
  for (const [label, crypto] of [
    ['noble', undefined],
    ['node:crypto', native],
  ]) {
    const store = new SqliteStore(join(dir, `issue-${label.replace(':', '')}.sqlite`));
    const ledger = new Ledger({
      store,
      names,
      log: 'svc-ledger',
      sthKey: ring.get('sth'),
      isPublished: () => true,
      highWater: new MemoryHighWater(),
      ...(crypto ? { crypto } : {}),
    });
    await ledger.init();
    const issuer = new Issuer(ring, names, ledger, { bridge: false, ...(crypto ? { crypto } : {}) });
    const n = quick ? 20 : 100;
    const t = performance.now();
    // One signed answer per append, each sealed by its own head: the `svc issue` pattern.
    for (let i = 0; i < n; i++) await issuer.issue({ answer: `answer ${i}` });
    rates[label] = n / ((performance.now() - t) / 1000);
    // Batches of 100 answers under one head: the batched pattern.
    const t2 = performance.now();
    for (let b = 0; b < (quick ? 2 : 5); b++)
      await issuer.issueMany(Array.from({ length: 100 }, (_, i) => ({ answer: `batch ${b} ${i}` })));
    rates[`${label} batched`] = ((quick ? 2 : 5) * 100) / ((performance.now() - t2) / 1000);
    await store.close();
  }
  line(
    'signed answers appended per second, one head each: noble / native',
    `${rates.noble.toFixed(1)} / ${rates['node:crypto'].toFixed(1)} (${(rates['node:crypto'] / rates.noble).toFixed(1)}x)`,
  );
  line(
    'signed answers appended per second, 100 per head: noble / native',
    `${rates['noble batched'].toFixed(1)} / ${rates['node:crypto batched'].toFixed(1)} (${(rates['node:crypto batched'] / rates['noble batched']).toFixed(1)}x)`,
  );
} finally {
  rmSync(dir, { recursive: true, force: true });
}
void createHash;
void machine;
process.exit(0);
