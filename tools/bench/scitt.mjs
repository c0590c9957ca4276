// SCITT (#34): (1) receipt verification against its baseline in the same run: one raw verify of the
// log's signature over the Sig_structure plus the path hashing (goal <= 1.3x), for the ML-DSA-44 and
// Ed25519 receipts; (2) registration through the service (verify the statement under the policy,
// append once, one signed head a second on SQLite), measured like the appends bench: statements
// acknowledged per second in the steady window, many registrations in flight. Fixed seeds.
//   node tools/bench/scitt.mjs [--seconds N]
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ed25519 } from '@noble/curves/ed25519.js';
import { ml_dsa44 } from '@noble/post-quantum/ml-dsa.js';
import { MemoryTree, inclusionProof, leafHash, namesFor, rootFromInclusionProof, sha256, toBase64Url, treeRoot, utf8 } from '@svc/core';
import { coseKey, ed25519Signer, readCose1, sigStructure } from '@svc/core/envelope';
import { logKeySigner, makeReceipt, signStatement, verifyReceipt } from '@svc/core/scitt';
import { logKeygen } from '@svc/core/tlog';
import { ensureKeys, loadConfig, openLedger, scittService } from '../../packages/server/dist/internal.js';
import { compare, line } from './util.mjs';

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
  // policy (SVC_SCITT_ISSUERS): statement signing is not what is measured, so it is the fast one.
  const dir = mkdtempSync(join(tmpdir(), 'svc-bench-scitt-'));
  try {
    const seed = sha256(utf8('bench issuer'));
    const issuer = ed25519Signer(seed);
    writeFileSync(join(dir, 'issuers.json'), JSON.stringify({ keys: [{ kty: 'OKP', crv: 'Ed25519', x: toBase64Url(issuer.publicKey) }] }));
    const cfg = loadConfig({ SVC_DATA_DIR: dir, SVC_LOG: '0', SVC_SCITT_ISSUERS: join(dir, 'issuers.json') });
    const names = namesFor('svc');
    const ring = ensureKeys(cfg, () => {});
    const ledger = await openLedger(cfg, names, ring, () => {}, { background: false, batchMs: 1000 });
    const scitt = scittService(cfg, names, ring, ledger);
    let n = 0;
    const statement = () =>
      signStatement(
        {
          answerSha256: sha256(utf8(`bench answer ${n}`)),
          iss: 'bench',
          sub: `urn:bench:${n++}`,
          iat: 1_767_225_600,
          typ: 'application/vnd.bench+cose',
        },
        issuer,
      );
    // Statements made ahead, so the window measures registration alone.
    const ready = Array.from({ length: 20_000 }, statement);
    const IN_FLIGHT = 4000;
    const start = performance.now();
    const end = start + seconds * 1000;
    const warm = start + Math.min(3, seconds / 3) * 1000;
    let acknowledged = 0;
    let refused = 0;
    const flying = new Set();
    while (performance.now() < end) {
      while (flying.size < IN_FLIGHT) {
        const st = ready.pop() ?? statement();
        const p = scitt.register(st, 0).then(
          () => {
            const now = performance.now();
            if (now >= warm && now <= end) acknowledged++;
          },
          () => refused++,
        );
        flying.add(p);
        p.finally(() => flying.delete(p));
      }
      await Promise.race(flying);
    }
    await Promise.allSettled(flying);
    const window = (end - warm) / 1000;
    line('registrations acknowledged per second (SQLite, 1 head/s)', `${Math.round(acknowledged / window)}`, '>= 10000');
    if (refused) line('registrations refused (should be none)', String(refused));
    await ledger.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { machine } = await import('./util.mjs');
  console.log(`machine: ${machine()}`);
  console.log(`runtime: Node ${process.version}`);
  const i = process.argv.indexOf('--seconds');
  await scittBench({ seconds: i > 0 ? Number(process.argv[i + 1]) : 10 });
}
