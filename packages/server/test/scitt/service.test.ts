// Registration as the service does it (#34's rate): registrations covered by the same head read
// their inclusion paths together (one store read), and registrations waiting for a published head
// share one poll of the checkpoint. Every receipt still verifies against the checkpoint's root.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { namesFor } from '@svc/core';
import { fromHex, sha256, toBase64Url, utf8 } from '@svc/core/primitives';
import { ed25519Signer } from '@svc/core/envelope';
import { signStatement, verifyReceipt } from '@svc/core/scitt';
import { parseCheckpoint, parseNote } from '@svc/core/tlog';
import {
  WorkerPool,
  ensureKeys,
  loadConfig,
  openLedger,
  poolStatementChecker,
  scittPolicy,
  scittService,
  type LogApi,
  type StatementChecker,
} from '../../src/internal.js';
import { seedKeys } from '../support/keys.js';

const issuer = ed25519Signer(sha256(utf8('service test issuer')));
const statement = (n: number) =>
  signStatement(
    { answerSha256: sha256(utf8(`answer ${n}`)), iss: 'test', sub: `urn:test:${n}`, iat: 1_767_225_600, typ: 'application/vnd.test+cose' },
    issuer,
  );

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

async function setUp(
  now: () => number = Date.now,
  checker?: (cfg: ReturnType<typeof loadConfig>, ring: ReturnType<typeof ensureKeys>) => StatementChecker,
) {
  const dir = mkdtempSync(join(tmpdir(), 'svc-scitt-service-'));
  dirs.push(dir);
  writeFileSync(join(dir, 'issuers.json'), JSON.stringify({ keys: [{ kty: 'OKP', crv: 'Ed25519', x: toBase64Url(issuer.publicKey) }] }));
  const cfg = loadConfig({ SVC_DATA_DIR: dir, SVC_LOG: '0', SVC_SCITT_ISSUERS: join(dir, 'issuers.json') });
  const names = namesFor('svc');
  seedKeys(dir);
  const ring = ensureKeys(cfg, () => {});
  const ledger: LogApi = await openLedger(cfg, names, ring, () => {}, { background: false, batchMs: 30 });
  const reads = { paths: [] as number[][], finds: [] as number[], checkpoints: 0 };
  let stale: string | null = null;
  const counted = {
    append: (l: Uint8Array[]) => ledger.append(l),
    findAll: (d: readonly Uint8Array[]) => {
      reads.finds.push(d.length);
      return ledger.findAll(d);
    },
    paths: (i: readonly number[], size: number) => {
      reads.paths.push([...i]);
      return ledger.paths(i, size);
    },
    checkpoint: async () => {
      reads.checkpoints++;
      return stale ?? ledger.checkpoint();
    },
  };
  const scitt = scittService(cfg, names, ring, counted, now, checker?.(cfg, ring));
  const logKeys = scitt.algs().map((alg) => ({ alg, publicKey: ring.publicKeys(alg === 'Ed25519' ? 'log-ed25519' : 'log-mldsa44')[0]! }));
  return {
    scitt,
    ledger,
    reads,
    logKeys,
    /** Publish the checkpoint of now from here on (a published head that stops moving, as a stalled witness round). */
    freeze: async () => {
      stale = await ledger.checkpoint();
    },
    thaw: () => {
      stale = null;
    },
  };
}

describe('SCITT registration as the service runs it', () => {
  it('registrations covered by the same head read their paths in one store read, and every receipt verifies at that head', async () => {
    const { scitt, ledger, reads, logKeys } = await setUp();
    const results = await Promise.all(Array.from({ length: 60 }, (_, n) => scitt.register(statement(n), 5_000)));
    const cp = parseCheckpoint(parseNote(await ledger.checkpoint()).text);
    for (const r of results) {
      expect('receipt' in r).toBe(true);
      if (!('receipt' in r)) continue;
      const v = verifyReceipt(r.receipt, fromHex(r.id, 32)!, { keys: logKeys, checkpoint: cp });
      expect(v.ok, v.detail).toBe(true);
    }
    // One read per head that covered them (one or two batches), never one per registration.
    expect(reads.paths.flat().sort((a, b) => a - b)).toEqual(Array.from({ length: 60 }, (_, i) => i));
    expect(reads.paths.length).toBeLessThanOrEqual(3);
    // Their entries were looked up together as well: one read for the 60.
    expect(reads.finds).toEqual([60]);
    await ledger.close();
  });

  it('statements offered together are checked in the verification pool as one task, off this thread', async () => {
    const tasks: number[] = [];
    let pool: WorkerPool | null = null;
    const { scitt, ledger, logKeys } = await setUp(Date.now, (cfg, ring) => {
      pool = WorkerPool.create(1, { service: 'svc', trustedKeys: [], scittPolicy: scittPolicy(cfg, ring, namesFor('svc')) }) as WorkerPool;
      const p = pool;
      return poolStatementChecker({ run: (t) => (tasks.push(t.op === 'statements' ? t.lengths.length : 0), p.run(t)) });
    });
    const foreign = signStatement(
      { answerSha256: sha256(utf8('x')), iss: 'x', sub: 'urn:x', iat: 1, typ: 'application/vnd.test+cose' },
      ed25519Signer(sha256(utf8('not in the policy'))),
    );
    const results = await Promise.allSettled([
      ...Array.from({ length: 50 }, (_, n) => scitt.register(statement(n), 5_000)),
      scitt.register(foreign, 0),
    ]);
    expect(tasks).toEqual([51]);
    expect(pool!.stats().inlined).toBe(0);
    const cp = parseCheckpoint(parseNote(await ledger.checkpoint()).text);
    for (const r of results.slice(0, 50)) {
      expect(r.status).toBe('fulfilled');
      const v =
        r.status === 'fulfilled' && 'receipt' in r.value
          ? verifyReceipt(r.value.receipt, fromHex(r.value.id, 32)!, { keys: logKeys, checkpoint: cp })
          : null;
      expect(v?.ok).toBe(true);
    }
    expect(results[50]).toMatchObject({ status: 'rejected', reason: { title: 'Rejected' } });
    await ledger.close();
    await pool!.close();
  });

  it('registrations waiting for a published head share one poll, each stops at its own deadline, and the rest get receipts when the head comes', async () => {
    let t = 1_000_000;
    const { scitt, ledger, freeze, thaw } = await setUp(() => t);
    await freeze(); // the published head stays at the empty tree, as under a stalled witness round
    const timers = vi.spyOn(globalThis, 'setTimeout');
    const settled = new Set<number>();
    const waiting = Array.from({ length: 40 }, (_, n) => {
      const r = scitt.register(statement(n), n < 20 ? 1_000 : 60_000);
      r.then(() => settled.add(n));
      return r;
    });
    // Their batch is committed, then they wait for the head.
    while (((await ledger.head()).tree_size ?? 0) < 40) await new Promise((r) => setImmediate(r));
    for (let k = 0; k < 5; k++) await new Promise((r) => setImmediate(r));
    // One poll timer for all of them (and the batch's own), where each set a timer of its own.
    expect(timers.mock.calls.length).toBeLessThan(10);
    timers.mockRestore();
    expect(settled.size).toBe(0);
    t += 1_001;
    expect((await Promise.all(waiting.slice(0, 20))).every((r) => 'pending' in r)).toBe(true);
    expect([...settled].filter((n) => n >= 20)).toEqual([]);
    thaw();
    t += 1_000;
    const late = await Promise.all(waiting.slice(20));
    expect(late.every((r) => 'receipt' in r)).toBe(true);
    await ledger.close();
  });

  it('the wait counts from the arrival: a registration whose check and append outlast it answers pending at once', async () => {
    let t = 1_000_000;
    const { scitt, ledger, freeze } = await setUp(() => t);
    await freeze();
    const r = scitt.register(statement(1), 1_000);
    t += 1_001; // spent before the statement was even appended
    expect(await r).toMatchObject({ pending: true });
    expect((await ledger.head()).tree_size).toBe(1);
    await ledger.close();
  });
});
