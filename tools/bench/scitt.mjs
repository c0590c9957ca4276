// SCITT (#34): (1) receipt verification against its baseline in the same run: one raw verify of the
// log's signature over the Sig_structure plus the path hashing (goal <= 1.3x), for the ML-DSA-44 and
// Ed25519 receipts; (2) registration through the service (verify the statement under the policy,
// append once, one signed head a second on SQLite), measured like the appends bench: statements
// acknowledged per second in the steady window, many registrations in flight. Fixed seeds.
//   node tools/bench/scitt.mjs [--seconds N] [--registration [--rate R] [--workers N] [--isolate]]
import { createPrivateKey, sign as cryptoSign } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ed25519 } from '@noble/curves/ed25519.js';
import { ml_dsa44 } from '@noble/post-quantum/ml-dsa.js';
import { namesFor } from '@svc/core';
import { sha256, toBase64Url, utf8 } from '@svc/core/primitives';
import { MemoryTree, inclusionProof, leafHash, rootFromInclusionProof, treeRoot } from '@svc/core/merkle';
import { coseKey, ed25519Signer, readCose1, sigStructure } from '@svc/core/envelope';
import { logKeySigner, makeReceipt, signStatement, verifyReceipt } from '@svc/core/scitt';
import { logKeygen } from '@svc/core/tlog';
import { cpus } from 'node:os';
import {
  WorkerPool,
  ensureKeys,
  loadConfig,
  openLedger,
  poolStatementChecker,
  scittPolicy,
  scittService,
} from '../../packages/server/dist/internal.js';
import { compare, line, percentiles } from './util.mjs';

export async function scittBench({ seconds = 10 } = {}) {
  // (1) Receipt verification: a leaf deep in a tree of 2^20 (a path of 20 hashes).
  const size = 1 << 20;
  const index = 777_777;
  const entry = sha256(utf8('bench statement'));
  const t2 = new MemoryTree();
  for (let i = 0; i < size; i++) t2.appendLeafHash(i === index ? leafHash(entry) : sha256(utf8(`bench leaf ${i}`)));
  const root2 = treeRoot(t2, size);
  const path2 = inclusionProof(t2, index, size);
  for (const [name, type] of [
    ['ML-DSA-44', 'subtree/v1'],
    ['Ed25519', 'ed25519'],
  ]) {
    const key = logKeygen(type, sha256(utf8(`bench log ${name}`)));
    const receipt = makeReceipt({ index, size, path: path2, root: root2, iss: 'bench.invalid/log' }, logKeySigner(key));
    const keys = [coseKey(name, key.publicKey)];
    const parts = readCose1(receipt);
    const raw =
      name === 'ML-DSA-44'
        ? (m) => ml_dsa44.verify(parts.signature, m, key.publicKey)
        : (m) => ed25519.verify(parts.signature, m, key.publicKey, { zip215: false });
    const must = (ok) => {
      if (!ok) throw new Error('verify failed');
    };
    const r = await compare(
      () => must(raw(sigStructure(parts.protectedBytes, rootFromInclusionProof(index, size, leafHash(entry), path2)))),
      () => must(verifyReceipt(receipt, entry, { keys }).ok),
      { n: name === 'ML-DSA-44' ? 100 : 300, pairs: 7 },
    );
    line(`[${name}] raw verify + path hashing (baseline)`, `${r.a.toFixed(3)} ms`);
    line(`[${name}] ratio verifyReceipt / baseline`, r.ratio.toFixed(3), '<= 1.3');
  }

  // (2) Registration on SQLite, one signed head a second, Ed25519 statements from an issuer in the
  // policy (SVC_SCITT_ISSUERS). Measured like the appends bench: offered at a fixed rate, whatever
  // is in flight, and counted as acknowledged in the steady window (from 3 s to the end of the
  // offer), with the latency of each; rising latency is the sign that a rate is not sustained.
  await registration({ seconds, rate: 10_000 });
}

/** Offer `rate` registrations a second for `seconds`; acknowledged per second in the steady window. */
export async function registration({ seconds = 10, rate = 10_000, quiet = false, workers = cpus().length, isolate = false } = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'svc-bench-scitt-'));
  try {
    const seed = sha256(utf8('bench issuer'));
    // Statements are made ahead with OpenSSL (statement signing is not what is measured).
    const der = Buffer.concat([Buffer.from('302e020100300506032b657004220420', 'hex'), seed]);
    const priv = createPrivateKey({ key: der, format: 'der', type: 'pkcs8' });
    const publicKey = ed25519Signer(seed).publicKey;
    const issuer = { alg: 'Ed25519', publicKey, sign: (m) => new Uint8Array(cryptoSign(null, m, priv)) };
    writeFileSync(join(dir, 'issuers.json'), JSON.stringify({ keys: [{ kty: 'OKP', crv: 'Ed25519', x: toBase64Url(publicKey) }] }));
    const cfg = loadConfig({ SVC_DATA_DIR: dir, SVC_LOG: '0', SVC_SCITT_ISSUERS: join(dir, 'issuers.json') });
    const names = namesFor('svc');
    const ring = ensureKeys(cfg, () => {});
    const ledger = await openLedger(cfg, names, ring, () => {}, { background: false, batchMs: 1000, isolate });
    // Statements are checked as svc serve checks them: in its verification pool (0: on this thread).
    const pool =
      workers > 0 ? WorkerPool.create(workers, { service: 'svc', trustedKeys: [], scittPolicy: scittPolicy(cfg, ring, names) }) : null;
    const scitt = scittService(cfg, names, ring, ledger, Date.now, pool ? poolStatementChecker(pool) : undefined);
    const total = Math.ceil(rate * seconds);
    const ready = Array.from({ length: total }, (_, n) =>
      signStatement(
        {
          answerSha256: sha256(utf8(`bench answer ${n}`)),
          iss: 'bench',
          sub: `urn:bench:${n}`,
          iat: 1_767_225_600,
          typ: 'application/vnd.bench+cose',
        },
        issuer,
      ),
    );
    const start = performance.now();
    const end = start + seconds * 1000;
    const warm = start + Math.min(3, seconds / 3) * 1000;
    let offered = 0;
    let acknowledged = 0;
    let refused = 0;
    const latency = [];
    const all = [];
    const cpu0 = process.cpuUsage();
    // Every 10 ms, start what the rate owes by now.
    while (performance.now() < end) {
      const owed = Math.min(total, Math.floor(((performance.now() - start) / 1000) * rate));
      for (; offered < owed; offered++) {
        const t0 = performance.now();
        all.push(
          scitt.register(ready[offered], 0).then(
            () => {
              const now = performance.now();
              if (now >= warm && now <= end) {
                acknowledged++;
                latency.push(now - t0);
              }
            },
            () => refused++,
          ),
        );
      }
      await new Promise((r) => setTimeout(r, 10));
    }
    const cpu = process.cpuUsage(cpu0);
    await Promise.allSettled(all);
    const window = (end - warm) / 1000;
    const p = percentiles(latency);
    const perSecond = Math.round(acknowledged / window);
    if (!quiet) {
      line(
        `registrations acknowledged per second, ${rate.toLocaleString('en')}/s offered (SQLite, 1 head/s, statements checked ${pool ? `by ${workers} pool thread(s)` : 'inline'}${isolate ? ', the store in its own process as svc serve keeps it' : ''})`,
        `${perSecond}`,
        '>= 10000',
      );
      line('  acknowledgement latency p50 / p99', `${p.p50.toFixed(0)} / ${p.p99.toFixed(0)} ms`);
      line(
        '  CPU per registration offered (all threads of the process)',
        `${(((cpu.user + cpu.system) / Math.max(1, offered)) | 0).toString()} us`,
      );
      if (refused) line('  registrations refused (should be none)', String(refused));
    }
    await ledger.close();
    await pool?.close();
    return { perSecond, p50: p.p50, p99: p.p99, refused };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { machine } = await import('./util.mjs');
  console.log(`machine: ${machine()}`);
  console.log(`runtime: Node ${process.version}`);
  const i = process.argv.indexOf('--seconds');
  const r = process.argv.indexOf('--rate');
  const seconds = i > 0 ? Number(process.argv[i + 1]) : 10;
  const w = process.argv.indexOf('--workers');
  if (process.argv.includes('--registration'))
    await registration({
      seconds,
      rate: r > 0 ? Number(process.argv[r + 1]) : 10_000,
      ...(w > 0 ? { workers: Number(process.argv[w + 1]) } : {}),
      isolate: process.argv.includes('--isolate'),
    });
  else await scittBench({ seconds });
}
