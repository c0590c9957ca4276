// Everything that issues, at once, on one data folder (SQLite) and on one PostgreSQL database: the
// library, the private HTTP API of a running `svc serve`, `svc issue` and `svc issue --jsonl`. Every
// answer is at exactly one index, every bundle verifies and proves its inclusion, and no instance
// sees a rollback. An issuer killed mid-batch loses only what it had not acknowledged.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { fromHex, sha256, utf8 } from '@svc/core/primitives';
import { leafHash, verifyInclusion } from '@svc/core/merkle';
import type { ProofBundle } from '@svc/core/issue';
import { afterAll, describe, expect, it } from 'vitest';
import { ensureKeys, loadConfig, openIssuer } from '../../src/internal.js';
import { BACKENDS, testDb, type BackendName } from '../support/backends.js';
import { call } from '../support/harness.js';
import { openLedgerAt } from '../support/ledger-at.js';
import { runSvc } from '../support/svc-cli.js';
import { issuingServer, post, verdictOf, type IssuingServer } from './support.js';
import { seedKeys } from '../support/keys.js';

const quiet = () => {};
const parseOut = (text: string, what: string) => {
  try {
    return JSON.parse(text);
  } catch {
    throw new Error(`${what} printed what is not JSON: ${JSON.stringify(text.slice(0, 300))}...${JSON.stringify(text.slice(-300))}`);
  }
};
const servers: IssuingServer[] = [];
afterAll(async () => {
  await Promise.all(servers.map((s) => s.stop()));
});

/** A data folder with keys, and the database URL when the backend is PostgreSQL. */
async function place(backend: BackendName): Promise<{ dir: string; url?: string; env: Record<string, string> }> {
  const dir = mkdtempSync(join(tmpdir(), 'svc-issue-together-'));
  const url = backend === 'postgres' ? (await testDb('postgres')).location : undefined;
  seedKeys(dir);
  ensureKeys(loadConfig({ SVC_DATA_DIR: dir }), quiet);
  return { dir, ...(url ? { url } : {}), env: { SVC_DATA_DIR: dir, SVC_LOG: '0', ...(url ? { SVC_DATABASE_URL: url } : {}) } };
}

/** The log as a fresh opener sees it after its full check: withheld or not, and where each answer is. */
async function logged(p: { dir: string; url?: string }, answers: string[]) {
  const ledger = await openLedgerAt({ SVC_DATA_DIR: p.dir, ...(p.url ? { SVC_DATABASE_URL: p.url } : {}) });
  try {
    await ledger.audit.fullCheck();
    const all = await ledger.store.leaves(0, await ledger.store.size());
    const at = new Map<string, number[]>();
    for (const [i, row] of all.entries()) {
      const k = Buffer.from(row.data).toString('hex');
      at.set(k, [...(at.get(k) ?? []), i]);
    }
    return {
      withheld: ledger.audit.withheld(),
      size: all.length,
      indexes: answers.map((a) => at.get(Buffer.from(sha256(utf8(a))).toString('hex')) ?? []),
    };
  } finally {
    await ledger.close();
  }
}

for (const backend of BACKENDS)
  describe(`issuing together on ${backend}`, () => {
    it('library, HTTP API, svc issue and svc issue --jsonl beside svc serve: one index per answer, every bundle verifies and is included', async () => {
      const p = await place(backend);
      const s = await issuingServer({ dir: p.dir, env: { ...p.env, SVC_RATE_ISSUE: '0' } });
      servers.push(s);
      const issuer = await openIssuer({ dataDir: p.dir, ...(p.url ? { databaseUrl: p.url } : {}), batchSeconds: 0.05, env: p.env });
      const tag = `${backend}-${Date.now()}`;
      const lib = Array.from({ length: 24 }, (_, i) => `${tag} library ${i}`);
      const libMany = Array.from({ length: 16 }, (_, i) => `${tag} library batch ${i}`);
      const api = Array.from({ length: 16 }, (_, i) => `${tag} api batch ${i}`);
      const apiOne = Array.from({ length: 6 }, (_, i) => `${tag} api ${i}`);
      const cli = [`${tag} cli 0`, `${tag} cli 1`];
      const jsonl = Array.from({ length: 12 }, (_, i) => `${tag} jsonl ${i}`);
      const cliArgs = ['--data-dir', p.dir, ...(p.url ? ['--database-url', p.url] : [])];
      const [libBundles, libManyBundles, apiBatch, apiSingles, cliRuns, jsonlRun] = await Promise.all([
        Promise.all(lib.map((answer) => issuer.issue({ answer }))),
        issuer.issueMany(libMany.map((answer) => ({ answer }))),
        post(`${s.issueUrl}/api/v1/issue/batch`, { answers: api.map((answer) => ({ answer })) }, s.tokens.app),
        Promise.all(apiOne.map((answer) => post(`${s.issueUrl}/api/v1/issue`, { answer }, s.tokens.app))),
        Promise.all(cli.map((answer) => runSvc(['issue', '--answer', answer, ...cliArgs], { env: p.env }))),
        runSvc(['issue', '--jsonl', ...cliArgs], { env: p.env, input: jsonl.map((answer) => JSON.stringify({ answer })).join('\n') }),
      ]);
      await issuer.close();
      expect(apiBatch.status).toBe(200);
      for (const r of apiSingles) expect(r.status).toBe(200);
      for (const r of cliRuns) expect(r.code, r.err).toBe(0);
      expect(jsonlRun.code, jsonlRun.err).toBe(0);
      const bundles: ProofBundle[] = [
        ...libBundles,
        ...libManyBundles,
        ...apiBatch.body.bundles,
        ...apiSingles.map((r) => r.body),
        ...cliRuns.map((r) => parseOut(r.out, 'svc issue')),
        ...jsonlRun.out
          .trim()
          .split('\n')
          .map((l) => parseOut(l, 'svc issue --jsonl')),
      ];
      const answers = [...lib, ...libMany, ...api, ...apiOne, ...cli, ...jsonl];
      expect(bundles.map((b) => b.answer)).toEqual(answers);
      for (const b of bundles) expect((await verdictOf(p.dir, b)).verdict.overallOk).toBe(true);
      // Exactly one index each, and nothing else in the log.
      const log = await logged(p, answers);
      expect(log.withheld).toBeNull();
      for (const [i, at] of log.indexes.entries()) expect(at, answers[i]).toHaveLength(1);
      expect(log.size).toBe(answers.length);
      // The running server saw no rollback, and proves each answer against its signed head.
      let head = (await call(s.url, '/api/transparency/ledger')).body;
      for (let i = 0; i < 100 && head.tree_size !== answers.length; i++) {
        await new Promise((r) => setTimeout(r, 50));
        head = (await call(s.url, '/api/transparency/ledger')).body;
      }
      expect(head.sth_withheld).toBeUndefined();
      const signed = JSON.parse(head.signed_tree_head.signed);
      expect(signed.tree_size).toBe(answers.length);
      for (const a of [lib[0]!, libMany[3]!, api[5]!, apiOne[1]!, cli[1]!, jsonl[11]!]) {
        const r = (await call(s.url, '/api/transparency/ledger/inclusion', { json: { answer: a, tree_size: signed.tree_size } })).body;
        expect(r.found).toBe(true);
        const proof = r.proof.map((h: string) => fromHex(h, 32)!);
        expect(verifyInclusion(r.index, signed.tree_size, leafHash(sha256(utf8(a))), proof, fromHex(signed.root_hash, 32)!)).toBe(true);
      }
    }, 180_000);

    it('an issuer killed mid-batch loses only what it had not acknowledged', async () => {
      const p = await place(backend);
      const script = fileURLToPath(new URL('../fixtures/issue-loop.mjs', import.meta.url));
      const child = spawn(process.execPath, [script, p.dir, ...(p.url ? [p.url] : [])], { stdio: ['ignore', 'pipe', 'inherit'] });
      const acked: string[] = [];
      let buf = '';
      await new Promise<void>((done) => {
        child.stdout.on('data', (c) => {
          buf += c;
          const lines = buf.split('\n');
          buf = lines.pop()!;
          for (const l of lines) if (l.startsWith('ack ')) acked.push(l.slice(4));
          // Killed while the next batches are in flight: some answers signed, not yet acknowledged.
          if (acked.length >= 35) {
            child.kill('SIGKILL');
            done();
          }
        });
        child.on('exit', () => done());
      });
      if (child.exitCode === null && child.signalCode === null) await once(child, 'exit');
      expect(acked.length).toBeGreaterThanOrEqual(35);
      const log = await logged(p, acked);
      expect(log.withheld).toBeNull();
      for (const [i, at] of log.indexes.entries()) expect(at, acked[i]).toHaveLength(1);
    }, 120_000);
  });
