// Every kind can be issued (issue 52, part 6): transcripts of issued turns, autopilot run evidence
// packs and conversation exports, through the library (openIssuer), the private API and `svc
// issue`. Each is logged like an answer, verifies through POST /api/v1/verify by the keys the
// server publishes, and is refused (nothing signed, the log unchanged) when it would not verify.
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { verifyBundle } from '@svc/core';
import { runHash } from '@svc/core/issue';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { asKind } from '@svc/core/testing';
import { call } from '../support/harness.js';
import { issuingServer, post, verdictOf, type IssuingServer } from './support.js';

const CLI = fileURLToPath(new URL('../../dist/cli.js', import.meta.url));
const RUN = {
  id: 'run-7',
  goal: 'Draft a release note',
  status: 'done',
  budgetCredits: 10,
  spentCredits: 7,
  steps: [
    { i: 0, action: 'collect', output_sha256: 'ab'.repeat(32), verify: 'schema', credits: 2 },
    { i: 1, action: 'write', output_sha256: 'cd'.repeat(32), verify: 'human', credits: 5 },
  ],
};
const CONVERSATIONS = [
  {
    id: 'c1',
    messages: [
      { role: 'user', content: 'Hi' },
      { role: 'assistant', content: 'Hello.' },
    ],
  },
  { id: 'c2', messages: [{ role: 'user', content: 'Bye' }] },
];

let s: IssuingServer;
beforeAll(async () => {
  s = await issuingServer({ env: { SVC_RATE_ISSUE: '0' } });
}, 60_000);
afterAll(async () => s?.stop());
const size = async () => (await call(s.url, '/api/transparency/ledger')).body.tree_size as number;
const issue = (kind: string, body: unknown, token = s.tokens.app) => post(`${s.issueUrl}/api/v1/issue/${kind}`, body, token);

describe('the private API issues every kind', () => {
  it('a transcript of issued turns: each turn logged, the transcript verifies', async () => {
    const before = await size();
    const r = await issue('transcript', { title: 'support chat', turns: [{ answer: 'Hello.' }, { answer: 'Paris.', prompt: 'Capital?' }] });
    expect(r.status).toBe(200);
    expect(r.body.kind).toBe('svc-transcript');
    expect(r.body.turns.map((t: { answer: string }) => t.answer)).toEqual(['Hello.', 'Paris.']);
    expect(await size()).toBe(before + 2);
    const v = await call(s.url, '/api/v1/verify', { json: r.body });
    expect(v.status).toBe(200);
    expect(v.body.verdict.overallOk).toBe(true);
    expect((await verdictOf(s.dir, r.body)).signerRecognized).toBe(true);
  });

  it('a run evidence pack: signed under the autopilot context, its hash logged, a record made from it', async () => {
    const before = await size();
    const r = await issue('run', { run: RUN });
    expect(r.status).toBe(200);
    expect(r.body.kind).toBe('svc-autopilot-run');
    expect(r.body.receipt.answer_sha256).toBe(runHash(RUN));
    expect(await size()).toBe(before + 1);
    const v = await verdictOf(s.dir, r.body);
    expect(v.verdict.overallOk).toBe(true);
    expect(v.signerRecognized).toBe(true);
    expect(asKind(v, 'run').verdict.run).toMatchObject({ hashOk: true, budgetOk: true, steps: 2 });
    // The run's hash is what the log holds: the ledger proves it like an answer's.
    const proved = await call(s.url, '/api/transparency/ledger/inclusion', { json: { answer_sha256: r.body.receipt.answer_sha256 } });
    expect(proved.status).toBe(200);
    expect(proved.body.found).toBe(true);
    const record = await call(s.url, '/api/v1/evidence', { json: r.body });
    expect(record.status).toBe(200);
    expect(record.body.record_type).toBe('autopilot_run');
    expect(record.body.attested.signed).toBe(true);
  });

  it('an export archive: its manifest signed under the export context and logged', async () => {
    const before = await size();
    const r = await issue('export', { conversations: CONVERSATIONS, exported: '2026-12-01T00:00:00Z' });
    expect(r.status).toBe(200);
    expect(r.body.proof.kind).toBe('svc-export');
    expect(r.body.count).toBe(2);
    expect(await size()).toBe(before + 1);
    const v = await verdictOf(s.dir, r.body);
    expect(v.verdict.overallOk).toBe(true);
    expect(asKind(v, 'export').verdict.export).toMatchObject({ manifestOk: true, payloadOk: true, countsOk: true });
  });

  for (const [name, kind, body] of [
    ['a transcript of no turns', 'transcript', { turns: [] }],
    ['a turn that is not an answer object', 'transcript', { turns: [{ answer: 'a', extra: 1 }] }],
    ['a run without a goal', 'run', { run: { id: 'r', steps: [] } }],
    ['a step without its output hash', 'run', { run: { ...RUN, steps: [{ verify: 'none', credits: 1 }] } }],
    ['a run over its budget (it would not verify)', 'run', { run: { ...RUN, budgetCredits: 5 } }],
    ['credits that do not add up (it would not verify)', 'run', { run: { ...RUN, spentCredits: 6 } }],
    ['an export of a conversation without messages', 'export', { conversations: [{ id: 'x' }] }],
  ] as const)
    it(`${name}: 422, nothing signed, the log unchanged`, async () => {
      const before = await size();
      const r = await issue(kind, body);
      expect(r.status).toBe(422);
      expect(r.body.code).toBe('invalid_request');
      expect(await size()).toBe(before);
    });

  it('401 without a token, on each kind', async () => {
    for (const kind of ['transcript', 'run', 'export'])
      expect((await post(`${s.issueUrl}/api/v1/issue/${kind}`, { run: RUN })).status).toBe(401);
  });
});

describe('the library and svc issue', () => {
  it('openIssuer reads no SVC_* variable of the host process unless given them (issue 54 part 4)', async () => {
    const { openIssuer, issuerSettingsFromEnv } = await import('../../src/internal.js');
    const saved = process.env.SVC_LEDGER;
    process.env.SVC_LEDGER = 'off';
    try {
      const plain = await openIssuer({ dataDir: s.dir, batchSeconds: 0.05 });
      expect(plain.logging).toBe(true);
      await plain.close();
      // Asked for, by name: the host's variables count, and only its SVC_* ones are taken.
      const settings = issuerSettingsFromEnv();
      expect(Object.keys(settings.env ?? {}).every((k) => k.startsWith('SVC_'))).toBe(true);
      const fromEnv = await openIssuer({ ...settings, dataDir: s.dir });
      expect(fromEnv.logging).toBe(false);
      await fromEnv.close();
    } finally {
      if (saved === undefined) delete process.env.SVC_LEDGER;
      else process.env.SVC_LEDGER = saved;
    }
  });

  it('openIssuer issues each kind beside the running server, on the same data folder', async () => {
    const { openIssuer, pinnedKeys, Keyring } = await import('../../src/internal.js');
    const { namesFor } = await import('@svc/core');
    const issuer = await openIssuer({ dataDir: s.dir, batchSeconds: 0.05, env: {} });
    try {
      const keys = pinnedKeys(Keyring.load(join(s.dir, 'keys')).ring, namesFor('svc'), false);
      for (const bundle of [
        await issuer.issueTranscript({ turns: [{ answer: 'One.' }, { answer: 'Two.' }] }),
        await issuer.issueRun({ run: RUN }),
        await issuer.issueExport({ conversations: CONVERSATIONS }),
      ]) {
        const v = await verifyBundle(bundle, { trustedKeys: keys });
        expect(v.verdict.overallOk, v.kind).toBe(true);
        expect(v.signerRecognized, v.kind).toBe(true);
      }
      await expect(issuer.issueRun({ run: { ...RUN, spentCredits: 99 } })).rejects.toMatchObject({ code: 'invalid_request' });
    } finally {
      await issuer.close();
    }
  });

  it('svc issue --run and --export print bundles that verify; a bad body is exit 2', async () => {
    const svc = (args: string[]) =>
      new Promise<{ code: number | null; out: string; err: string }>((ok) => {
        const c = spawn(process.execPath, [CLI, 'issue', ...args], { env: { ...process.env, SVC_DATA_DIR: s.dir, SVC_LOG: '0' } });
        let out = '';
        let err = '';
        c.stdout.on('data', (d) => (out += d));
        c.stderr.on('data', (d) => (err += d));
        c.on('close', (code) => ok({ code, out, err }));
      });
    const runFile = join(s.dir, 'run.json');
    writeFileSync(runFile, JSON.stringify({ run: RUN }));
    const exportFile = join(s.dir, 'export.json');
    writeFileSync(exportFile, JSON.stringify({ conversations: CONVERSATIONS }));
    const transcriptFile = join(s.dir, 'transcript.json');
    writeFileSync(transcriptFile, JSON.stringify({ turns: [{ answer: 'Three.' }] }));
    for (const args of [
      ['--run', runFile],
      ['--export', exportFile],
      ['--transcript', transcriptFile],
    ]) {
      const r = await svc(args);
      expect(r.code, r.err).toBe(0);
      const v = await verdictOf(s.dir, JSON.parse(r.out));
      expect(v.verdict.overallOk, args[0]).toBe(true);
      expect(v.signerRecognized, args[0]).toBe(true);
    }
    writeFileSync(runFile, JSON.stringify({ run: { ...RUN, budgetCredits: 1 } }));
    const over = await svc(['--run', runFile]);
    expect(over.code).toBe(2);
    expect(over.err).toMatch(/would not verify/);
    const both = await svc(['--run', runFile, '--answer', 'x']);
    expect(both.code).toBe(2);
  }, 60_000);
});
