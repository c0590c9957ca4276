// The ledger endpoints over real HTTP, fed by an issuer beside the server (25 answers, each under
// its own signed head) and by `svc issue` running in other processes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyBundle } from '@svc/core';
import { fromHex, sha256, toHex, utf8 } from '@svc/core/primitives';
import { leafHash, verifyInclusion } from '@svc/core/merkle';
import { signTreeHead } from '@svc/core/issue';
import { Keyring } from '../../src/internal.js';
import { issueEach as issueEachBeside } from '../support/issue-each.js';
import { BACKENDS, sqliteDb, testDb, type BackendName, type TestDb } from '../support/backends.js';
import { boot, call, expectSchema, schemas, type Booted } from '../support/harness.js';
import { CLI, runSvc } from '../support/svc-cli.js';

describe.each(BACKENDS)('%s', (backend: BackendName) => {
  let s: Booted;
  let pinned: any[];
  let db: TestDb;
  // Each server gets its own store: a fresh database for PostgreSQL, its data folder's file for SQLite.
  const stores = new Map<string, TestDb>();

  async function bootOn(overrides: Parameters<typeof boot>[0] = {}): Promise<Booted> {
    if (backend === 'sqlite') {
      const t = await boot(overrides);
      stores.set(t.dir, sqliteDb(`${t.dir}/ledger.sqlite`));
      return t;
    }
    const d = overrides.dataDir ? stores.get(overrides.dataDir)! : await testDb('postgres');
    const t = await boot({ ...overrides, databaseUrl: d.location });
    stores.set(t.dir, d);
    return t;
  }

  /** Raw SQL against the store of the server booted in `dir`. */
  function sqlOf(dir: string): TestDb['sql'] {
    return stores.get(dir)!.sql;
  }

  function openStoreOf(t: Booted) {
    return stores.get(t.dir)!.open();
  }

  /** `svc issue` in a process of its own, run asynchronously: the server in this process goes on
   *  serving meanwhile (a synchronous spawn stopped it, and its keep-alive timers then closed the
   *  next request's connection under it: ECONNRESET on a busy machine). */
  async function issue(dir: string, answer: string, ...extra: string[]) {
    const url = backend === 'postgres' ? { SVC_DATABASE_URL: stores.get(dir)!.location } : {};
    const r = await runSvc(['issue', '--answer', answer, ...extra], { env: { SVC_DATA_DIR: dir, ...url } });
    if (r.code !== 0) throw new Error(`svc issue exited ${r.code}: ${r.err}`);
    return JSON.parse(r.out);
  }

  const issueEach = (dir: string, answers: string[]) =>
    issueEachBeside(dir, answers, backend === 'postgres' ? stores.get(dir)!.location : undefined);

  beforeAll(async () => {
    s = await bootOn({ rate: { verify: 0, read: 0, modelKeys: 0, tiles: 0 } });
    db = stores.get(s.dir)!;
    await issueEach(
      s.dir,
      Array.from({ length: 25 }, (_, i) => `answer ${i}`),
    );
    pinned = (await call(s.url, '/api/provenance/pubkey')).body.keys;
  }, 120_000);
  afterAll(async () => s?.stop());

  describe('GET /api/transparency/ledger', () => {
    it('serves the signed head after svc issue appended from other processes', async () => {
      const r = await call(s.url, '/api/transparency/ledger');
      expect(r.status).toBe(200);
      expectSchema(schemas.LedgerSth, r.body);
      expect(r.body).toMatchObject({ enabled: true, log: 'svc-ledger', algo: 'RFC6962-SHA256', tree_size: 25 });
      expect(r.body.leaf_hashing).toContain('0x00');
      const v = await verifyBundle(r.body.signed_tree_head, { trustedKeys: pinned });
      expect(v.verdict.overallOk).toBe(true);
      expect(v.signerRecognized).toBe(true); // the server pins its own tree-head key
      // The same head verifies through the server's own verify endpoint, and is recognised there.
      const vv = await call(s.url, '/api/v1/verify', { json: r.body.signed_tree_head });
      expect(vv.body.signerRecognized).toBe(true);
    });

    it('the issued bundle verifies and is recognised', async () => {
      const b = await issue(s.dir, 'a fresh answer', '--prompt', 'a question?', '--model', 'test-model');
      expect(b.receipt.model).toBe('test-model');
      const v = await call(s.url, '/api/v1/verify', { json: b });
      expect(v.body.verdict.overallOk).toBe(true);
      expect(v.body.signerRecognized).toBe(true);
      expect(v.body.verdict.receipt.questionBinding).toBe('entire-input');
    });
  });

  describe('several issuing processes, one log', () => {
    it('concurrent svc issue processes all append, each under its own signed head, with no fork', async () => {
      const { spawn } = await import('node:child_process');
      const before = (await call(s.url, '/api/transparency/ledger')).body.tree_size;
      const run = (i: number) =>
        new Promise<number | null>((resolve) => {
          const c = spawn(process.execPath, [CLI, 'issue', '--answer', `concurrent ${i}`], {
            env: { ...process.env, SVC_DATA_DIR: s.dir, ...(backend === 'postgres' ? { SVC_DATABASE_URL: db.location } : {}) },
            stdio: 'ignore',
          });
          c.on('exit', resolve);
        });
      const codes = await Promise.all(Array.from({ length: 6 }, (_, i) => run(i)));
      expect(codes).toEqual([0, 0, 0, 0, 0, 0]);
      const head = (await call(s.url, '/api/transparency/ledger')).body;
      expect(head.tree_size).toBe(before + 6);
      expect(head.sth_withheld).toBeUndefined();
      for (let i = 0; i < 6; i++)
        expect((await call(s.url, '/api/transparency/ledger/inclusion', { json: { answer: `concurrent ${i}` } })).body.found).toBe(true);
      const hist = (await call(s.url, '/api/transparency/ledger/history')).body;
      expect(hist.forked_sizes).toEqual([]);
      expect(hist.inconsistent_sizes).toEqual([]);
    }, 60_000);
  });

  describe('POST /api/transparency/ledger/inclusion', () => {
    it('finds by answer, answer_sha256 or leaf; the path verifies against the signed root', async () => {
      const head = (await call(s.url, '/api/transparency/ledger')).body;
      const signed = JSON.parse(head.signed_tree_head.signed);
      const hash = toHex(sha256(utf8('answer 7')));
      for (const q of [{ answer: 'answer 7' }, { answer_sha256: hash }, { leaf: toHex(leafHash(fromHex(hash)!)) }]) {
        const r = await call(s.url, '/api/transparency/ledger/inclusion', { json: { ...q, tree_size: signed.tree_size } });
        expect(r.status).toBe(200);
        expectSchema(schemas.InclusionResponse, r.body);
        expect(r.body).toMatchObject({ found: true, index: 7, tree_size: signed.tree_size });
        const ok = verifyInclusion(
          7,
          signed.tree_size,
          fromHex(r.body.leaf)!,
          r.body.proof.map((p: string) => fromHex(p)!),
          fromHex(signed.root_hash)!,
        );
        expect(ok).toBe(true);
      }
    });

    it('found:false when absent or beyond the pinned tree size', async () => {
      expect((await call(s.url, '/api/transparency/ledger/inclusion', { json: { answer: 'never issued' } })).body).toEqual({
        found: false,
      });
      expect((await call(s.url, '/api/transparency/ledger/inclusion', { json: { answer: 'answer 20', tree_size: 10 } })).body).toEqual({
        found: false,
      });
    });

    it('400 invalid JSON; 422 for no usable field, two fields, bad hex, wrong lengths or sizes', async () => {
      expect((await call(s.url, '/api/transparency/ledger/inclusion', { method: 'POST', body: '{' })).status).toBe(400);
      for (const body of [
        {},
        { answer: 'a', leaf: '00'.repeat(32) },
        { leaf: 'zz'.repeat(32) },
        { leaf: 'AB'.repeat(32) },
        { answer_sha256: '00'.repeat(31) },
        { answer: 42 },
        { answer: 'answer 1', tree_size: -1 },
        { answer: 'answer 1', tree_size: 1e18 },
        { answer: 'answer 1', tree_size: 0 },
        { answer: 'answer 1', tree_size: 1.5 },
        [],
        'text',
      ]) {
        const r = await call(s.url, '/api/transparency/ledger/inclusion', { json: body });
        expect(r.status, JSON.stringify(body)).toBe(422);
        expectSchema(schemas.ErrorBody, r.body);
      }
    });
  });

  describe('GET /api/transparency/ledger/consistency', () => {
    it('plain proof between two sizes verifies', async () => {
      const r = await call(s.url, '/api/transparency/ledger/consistency?first=3&second=20');
      expect(r.status).toBe(200);
      expectSchema(schemas.ConsistencyResponse, r.body);
      expect(r.body.sth_withheld).toBeUndefined();
      const { verifyConsistency } = await import('@svc/core/merkle');
      expect(
        verifyConsistency(
          3,
          20,
          fromHex(r.body.old_root)!,
          fromHex(r.body.new_root)!,
          r.body.proof.map((p: string) => fromHex(p)!),
        ),
      ).toBe(true);
      const d = await call(s.url, '/api/transparency/ledger/consistency?first=3');
      expect(d.body.second).toBeGreaterThanOrEqual(25);
    });

    it('signed=1 returns a ConsistencyBundle built from recorded heads that verifies and is recognised', async () => {
      const r = await call(s.url, '/api/transparency/ledger/consistency?first=4&second=19&signed=1');
      expect(r.status).toBe(200);
      expectSchema(schemas.ConsistencyBundle, r.body);
      const v = await verifyBundle(r.body, { trustedKeys: pinned });
      expect(v.verdict.overallOk).toBe(true);
      expect(v.kind === 'svc-consistency' && v.verdict.timestampOrderOk).toBe(true);
      expect(v.signerRecognized).toBe(true);
    });

    it('422 out of range', async () => {
      for (const q of [
        'first=0',
        'first=999',
        'first=5&second=4',
        'first=5&second=9999',
        'first=-1',
        'first=abc',
        '',
        'first=1&signed=2',
      ]) {
        const r = await call(s.url, `/api/transparency/ledger/consistency?${q}`);
        expect(r.status, q).toBe(422);
        expectSchema(schemas.ErrorBody, r.body);
      }
    });
  });

  describe('GET /api/transparency/ledger/history', () => {
    it('reports the self-audit and, with verifiable=1, the newest 20 self-contained signed checkpoints', async () => {
      const plain = await call(s.url, '/api/transparency/ledger/history');
      expect(plain.status).toBe(200);
      expectSchema(schemas.LedgerHistory, plain.body);
      expect(plain.body.signed_checkpoints).toBeUndefined();
      expect(plain.body).toMatchObject({ enabled: true, forked_sizes: [], inconsistent_sizes: [] });
      expect(plain.body.count).toBeGreaterThanOrEqual(26);
      const r = await call(s.url, '/api/transparency/ledger/history?verifiable=1');
      expect(r.body.signed_checkpoints).toHaveLength(20);
      for (const c of r.body.signed_checkpoints) {
        const v = await verifyBundle(c, { trustedKeys: pinned });
        expect(v.verdict.overallOk).toBe(true);
        expect(v.signerRecognized).toBe(true);
      }
      const sizes = r.body.signed_checkpoints.map((c: any) => JSON.parse(c.signed).tree_size);
      expect(sizes).toEqual([...sizes].sort((a: number, b: number) => b - a));
      expect((await call(s.url, '/api/transparency/ledger/history?verifiable=2')).status).toBe(422);
    });
  });

  describe('special states', () => {
    it('bundle_withheld: timestamp-order when the head at second is dated before the head at first', async () => {
      const t = await bootOn();
      try {
        const store = await openStoreOf(t);
        const ring = Keyring.load(`${t.dir}/keys`).ring;
        const mk = (n: number, ts: number) =>
          store.sequence([sha256(utf8(`x${n}`))], (size, root) => {
            const sth = signTreeHead({ log: 'svc-ledger', tree_size: size, root_hash: toHex(root), timestamp: ts }, ring.get('sth'));
            return {
              tree_size: size,
              root_hash: toHex(root),
              timestamp: ts,
              signed: sth.signed,
              receipt: JSON.stringify(sth.receipt),
              key_hex: sth.key.public_key_hex,
              recorded: ts,
            };
          });
        await mk(1, 5_000_000_000_000);
        await mk(2, 4_000_000_000_000);
        await store.close();
        const r = await call(t.url, '/api/transparency/ledger/consistency?first=1&second=2&signed=1');
        expect(r.status).toBe(200);
        expect(r.body.bundle_withheld).toBe('timestamp-order');
        expect(r.body.proof).toBeInstanceOf(Array);
        expect(r.body.old_root).toMatch(/^[0-9a-f]{64}$/);
      } finally {
        await t.stop();
      }
    });

    it('a tampered log is withheld with the same reason on every endpoint (rule 1)', async () => {
      const t = await bootOn();
      try {
        await issueEach(t.dir, ['t0', 't1', 't2']);
        await sqlOf(t.dir)('DELETE FROM {leaves} WHERE idx >= 2');
        const head = await call(t.url, '/api/transparency/ledger');
        expect(head.body).toMatchObject({ sth_withheld: 'rollback', signed_tree_head: null });
        const cons = await call(t.url, '/api/transparency/ledger/consistency?first=1');
        expect(cons.body.sth_withheld).toBe('rollback');
        const hist = await call(t.url, '/api/transparency/ledger/history');
        expect(hist.body.consistent).toBe(false);
        // Rule 2: issuing is refused while withheld.
        await expect(issue(t.dir, 'more')).rejects.toThrow(/exited 3/);
      } finally {
        await t.stop();
      }
    });

    it('signed checkpoints carry key:null once their tree-head key is no longer published', async () => {
      const { readdirSync, rmSync } = await import('node:fs');
      const t = await bootOn();
      try {
        await issue(t.dir, 'before rotation');
        await t.close();
        Keyring.generate(`${t.dir}/keys`, { roles: ['sth'], rotate: true });
        for (const f of readdirSync(`${t.dir}/keys/retired`)) if (f.startsWith('sth-')) rmSync(`${t.dir}/keys/retired/${f}`);
        const t2 = await bootOn({ dataDir: t.dir });
        try {
          await issue(t.dir, 'after rotation');
          const r = await call(t2.url, '/api/transparency/ledger/history?verifiable=1');
          const cps = r.body.signed_checkpoints;
          expect(cps.length).toBe(3);
          expect(cps[0].key).not.toBeNull();
          expect(cps[1].key).toBeNull();
          expect(cps[2].key).toBeNull();
          const keys = (await call(t2.url, '/api/provenance/pubkey')).body.keys;
          expect((await verifyBundle(cps[0], { trustedKeys: keys })).signerRecognized).toBe(true);
        } finally {
          await t2.close();
        }
      } finally {
        await t.stop();
      }
    });

    it('the ledger turned off: head and history answer {enabled:false}; proofs, which have no such shape, 503', async () => {
      const t = await bootOn({ ledger: false });
      try {
        for (const p of ['/api/transparency/ledger', '/api/transparency/ledger/history']) {
          const r = await call(t.url, p);
          expect(r.status).toBe(200);
          expect(r.body).toEqual({ enabled: false });
        }
        for (const r of [
          await call(t.url, '/api/transparency/ledger/consistency?first=1'),
          await call(t.url, '/api/transparency/ledger/inclusion', { json: { answer: 'x' } }),
        ]) {
          expect(r.status).toBe(503);
          expect(r.body).toMatchObject({ code: 'unavailable', error: 'the ledger is off on this server' });
        }
      } finally {
        await t.stop();
      }
    });

    it('503 with {error} when the store cannot be read', async () => {
      const t = await bootOn();
      try {
        await sqlOf(t.dir)('DROP TABLE {leaves}');
        for (const p of ['/api/transparency/ledger', '/api/transparency/ledger/history', '/api/transparency/ledger/consistency?first=1']) {
          const r = await call(t.url, p);
          expect(r.status, p).toBe(503);
          expectSchema(schemas.ErrorBody, r.body);
        }
        expect((await call(t.url, '/api/transparency/ledger/inclusion', { json: { answer: 'x' } })).status).toBe(503);
      } finally {
        await t.stop();
      }
    });
  });
});
