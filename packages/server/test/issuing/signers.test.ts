// Signing threads: the bundles they make verify and come back in order however a batch is split;
// a thread that dies fails only what it held, appends nothing, and is replaced; 0 threads signs on
// the caller's thread; the caller's event loop keeps turning while the threads sign.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { namesFor } from '@svc/core';
import { sha256, utf8 } from '@svc/core/primitives';
import { ensureKeys, issuerOf, loadConfig, openLedger, SignerPool } from '../../src/internal.js';
import { CHUNK, MAX_QUEUED_PER_OWNER, SignerBusy } from '../../src/issuing/signers.js';
import { verdictOf } from './support.js';
import { seedKeys } from '../support/keys.js';

const dir = mkdtempSync(join(tmpdir(), 'svc-signers-'));
seedKeys(dir);
ensureKeys(loadConfig({ SVC_DATA_DIR: dir }), () => {});
const settings = { dataDir: dir, service: 'svc', slhDiversity: false, bridge: true };
const pools: SignerPool[] = [];
afterAll(() => Promise.all(pools.map((p) => p.close())));

describe('signing threads', () => {
  it('a batch split across two threads comes back whole, in order, every bundle valid under the folder keys', async () => {
    const pool = new SignerPool(2, settings, () => {});
    pools.push(pool);
    const inputs = Array.from({ length: 9 }, (_, i) => ({
      answer: `answer ${i}`,
      ...(i % 3 === 0 ? { prompt: `q ${i}` } : {}),
      ...(i === 4 ? { envelopes: ['cose' as const] } : {}),
    }));
    const bundles = await pool.sign(inputs);
    expect(bundles.map((b) => b.answer)).toEqual(inputs.map((i) => i.answer));
    for (const b of bundles) expect((await verdictOf(dir, b)).signerRecognized).toBe(true);
    expect(Object.keys(bundles[4]!.receipt.envelopes ?? {})).toEqual(['cose']);
  }, 60_000);

  it("one owner's batches do not starve another's answer: owners take turns, a chunk each (issue 53 row 7)", async () => {
    const pool = new SignerPool(1, settings, () => {});
    pools.push(pool);
    await pool.sign([{ answer: 'warm' }]);
    const done: string[] = [];
    // Three batches of 32 from one token, queued before the other token's single answer.
    const flood = Array.from({ length: 3 }, (_, k) =>
      pool
        .sign(
          Array.from({ length: 32 }, (_, i) => ({ answer: `a${k}.${i}` })),
          'flooder',
        )
        .then(() => done.push(`flooder ${k}`)),
    );
    const other = pool.sign([{ answer: 'b' }], 'other').then(() => done.push('other'));
    await Promise.all([...flood, other]);
    // First come, first served would sign all 96 first. In turns, the answer waits only for the
    // chunks already handed to the thread (2 of CHUNK answers each, 8 of the first batch's 32) and
    // one more turn: it is back before any of the three batches.
    expect(CHUNK * 2).toBeLessThan(32);
    expect(done[0]).toBe('other');
    expect(done).toHaveLength(4);
  }, 120_000);

  it("an owner's waiting answers are bounded: past MAX_QUEUED_PER_OWNER it is refused, others are not", async () => {
    const pool = new SignerPool(1, settings, () => {});
    pools.push(pool);
    const many = (n: number, tag: string) => Array.from({ length: n }, (_, i) => ({ answer: `${tag} ${i}` }));
    // Its outcome is taken at once: the pool is closed under it below.
    const held = pool.sign(many(MAX_QUEUED_PER_OWNER, 'full'), 'greedy').then(
      () => 'signed',
      (e: Error) => e.message,
    );
    await expect(pool.sign(many(1, 'one more'), 'greedy')).rejects.toBeInstanceOf(SignerBusy);
    const [other] = await pool.sign(many(1, 'other'), 'other');
    expect(other!.answer).toBe('other 0');
    await pool.close();
    expect(await held).toMatch(/nothing was signed/);
  }, 120_000);

  it('a thread that dies mid-sign fails what it held, and a new thread signs the next', async () => {
    const events: string[] = [];
    const pool = new SignerPool(1, settings, (e) => events.push(e));
    pools.push(pool);
    await pool.sign([{ answer: 'warm' }]);
    const pending = pool.sign(Array.from({ length: 50 }, (_, i) => ({ answer: `held ${i}` })));
    await (pool as unknown as { threads: { worker: { terminate(): Promise<number> } }[] }).threads[0]!.worker.terminate();
    await expect(pending).rejects.toThrow(/nothing was signed/);
    expect(events).toContain('issue_signer_died');
    const [after] = await pool.sign([{ answer: 'after the death' }]);
    expect((await verdictOf(dir, after)).verdict.overallOk).toBe(true);
  }, 60_000);

  it('an issuer whose thread dies appends nothing of that batch; with 0 threads it signs on its own', async () => {
    const cfg = loadConfig({ SVC_DATA_DIR: dir, SVC_LOG: '0' });
    const ring = ensureKeys(cfg, () => {});
    const ledger = await openLedger(cfg, namesFor('svc'), ring, () => {}, { background: false, batchMs: 0 });
    const pool = new SignerPool(1, settings, () => {});
    pools.push(pool);
    try {
      const issuer = issuerOf(cfg, ring, ledger, null, { signer: pool });
      const answers = Array.from({ length: 40 }, (_, i) => `never logged ${i} ${Math.random()}`);
      const pending = issuer.issueMany(answers.map((answer) => ({ answer })));
      await (pool as unknown as { threads: { worker: { terminate(): Promise<number> } }[] }).threads[0]!.worker.terminate();
      await expect(pending).rejects.toThrow(/nothing was signed/);
      for (const a of answers) expect(await ledger.find(sha256(utf8(a)))).toBeUndefined();
      const inline = issuerOf(cfg, ring, ledger, null);
      const [b] = await inline.issueMany([{ answer: 'inline' }]);
      expect((await verdictOf(dir, b)).verdict.overallOk).toBe(true);
      expect(await ledger.find(sha256(utf8('inline')))).toBeDefined();
    } finally {
      await ledger.close();
    }
  }, 60_000);

  it("the caller's event loop turns while the threads sign", async () => {
    const pool = new SignerPool(1, settings, () => {});
    pools.push(pool);
    let ticks = 0;
    const timer = setInterval(() => ticks++, 5);
    await pool.sign(Array.from({ length: 30 }, (_, i) => ({ answer: `loop ${i}` })));
    clearInterval(timer);
    // 30 bundles take at least tens of milliseconds to sign; the timer ran meanwhile, more than once.
    expect(ticks).toBeGreaterThan(1);
  }, 60_000);
});
