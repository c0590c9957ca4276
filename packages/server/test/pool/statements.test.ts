// SCITT statements checked in the verification pool (#34's rate): a batch crosses to a worker
// thread in one task and comes back as one verdict per statement, the core's own verdict; a batch
// never runs on the event loop; a task whose lengths do not cut its body is the server's fault.
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { concatBytes, sha256, utf8 } from '@svc/core/primitives';
import { ed25519Signer } from '@svc/core/envelope';
import { checkRegistration, signStatement } from '@svc/core/scitt';
import { LedgerError, WorkerPool, poolStatementChecker, type Executor } from '../../src/internal.js';

const issuer = ed25519Signer(sha256(utf8('pool statements issuer')));
const stranger = ed25519Signer(sha256(utf8('pool statements stranger')));
const keys = [{ alg: 'Ed25519' as const, publicKey: issuer.publicKey }];
const policy = {
  service: [],
  listed: keys,
  reserved: { iss: 'svc', subPrefix: 'urn:svc:answer:', typ: 'application/vnd.svc.answer-statement+cose' },
};
const statement = (n: number, by = issuer) =>
  signStatement(
    { answerSha256: sha256(utf8(`answer ${n}`)), iss: 'test', sub: `urn:test:${n}`, iat: 1_767_225_600, typ: 'application/vnd.test+cose' },
    by,
  );

const pools: Executor[] = [];
function pool(): WorkerPool {
  // Everything else this cheap would run inline; statement batches must not.
  const p = WorkerPool.create(1, { service: 'svc', trustedKeys: [], scittPolicy: policy }, { inlineMaxCost: 1_000 });
  pools.push(p);
  expect(p).toBeInstanceOf(WorkerPool);
  return p as WorkerPool;
}
afterEach(async () => {
  await Promise.all(pools.splice(0).map((p) => p.close()));
});

describe('statement checks in the pool', () => {
  it("each statement's verdict is the core's own, in order; the batch runs on a worker, never inline", async () => {
    const p = pool();
    const check = poolStatementChecker(p);
    const good = statement(1);
    const damaged = good.slice();
    damaged[damaged.length - 1]! ^= 1;
    const batch = [good, damaged, statement(2, stranger), new Uint8Array([0xd2, 0x84]), statement(3)];
    const verdicts = await check(batch);
    expect(verdicts.map((v) => [v.ok, v.error])).toEqual([
      [true, undefined],
      [false, 'bad_statement_signature'],
      [false, 'bad_statement_signature'], // another issuer's key: the policy's Ed25519 key names no kid, so it is tried
      [false, 'malformed'],
      [true, undefined],
    ]);
    for (const [n, b] of batch.entries()) expect(verdicts[n]!.leaf).toBe(checkRegistration(b, policy).leaf);
    expect(p.stats().inlined).toBe(0);
  });

  it('property: for any batch of statements, some damaged, the pool answers what the core answers inline', async () => {
    const p = pool();
    const check = poolStatementChecker(p);
    const made = Array.from({ length: 8 }, (_, n) => statement(n, n % 3 === 2 ? stranger : issuer));
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.tuple(fc.nat({ max: 7 }), fc.option(fc.nat(), { nil: undefined })), { minLength: 1, maxLength: 12 }),
        async (picks) => {
          const batch = picks.map(([n, at]) => {
            const b = made[n]!.slice();
            if (at !== undefined) b[at % b.length]! ^= 0x40;
            return b;
          });
          const inline = batch.map((b) => checkRegistration(b, policy));
          const pooled = await check(batch);
          expect(pooled.map((v) => [v.ok, v.leaf, v.error])).toEqual(inline.map((v) => [v.ok, v.leaf, v.error]));
        },
      ),
      { numRuns: 25 },
    );
  });

  it("lengths that do not cut the body exactly are the server's fault (internal), and the worker serves on", async () => {
    const p = pool();
    const s = statement(1);
    for (const lengths of [[s.length + 1], [s.length - 1], [-1, s.length + 1], [Number.NaN], [0.5, s.length - 0.5]])
      expect(await p.run({ op: 'statements', body: concatBytes(s), lengths })).toMatchObject({ ok: false, code: 'internal' });
    expect(await p.run({ op: 'statements', body: concatBytes(s, s), lengths: [s.length, s.length] })).toMatchObject({ ok: true });
  });

  it('a pool that cannot take the batch refuses it as the ledger does when busy (unavailable)', async () => {
    const p = pool();
    await p.close();
    await expect(poolStatementChecker(p)([statement(1)])).rejects.toBeInstanceOf(LedgerError);
    await expect(poolStatementChecker(p)([statement(1)])).rejects.toMatchObject({ code: 'unavailable', retryAfter: 1 });
  });
});
