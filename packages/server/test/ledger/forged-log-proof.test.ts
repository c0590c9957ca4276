// A forged log proof (#30 row 7): a genuine answer of this server, never logged, with a hand-made
// tlogProof: a one-leaf tree of its own leaf under a checkpoint that names this server's log, with
// a junk line where the log's signature belongs. The server judges checkpoints with its own log
// keys: the verdict fails, no record attests the answer as logged, and the ledger agrees.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { namesFor } from '@svc/core';
import { sha256, utf8 } from '@svc/core/primitives';
import { leafHash } from '@svc/core/merkle';
import { formatCheckpoint, formatNote, formatTlogProof, parseNote } from '@svc/core/tlog';
import { Issuer, Keyring } from '../../src/internal.js';
import { boot, call, type Booted } from '../support/harness.js';

let s: Booted;
let origin = '';
let logLine: { name: string; id: number } | null = null;
beforeAll(async () => {
  s = await boot();
  const note = await (await fetch(`${s.url}/api/transparency/tlog/checkpoint`)).text();
  const parsed = parseNote(note);
  origin = parsed.text.split('\n')[0]!;
  const sig = parsed.signatures[0]!;
  logLine = { name: sig.name, id: sig.id };
}, 60_000);
afterAll(() => s?.stop());

function forged(bundle: Record<string, unknown>, signature: Uint8Array): Record<string, unknown> {
  const root = leafHash(sha256(utf8(bundle.answer as string)));
  const text = formatCheckpoint({ origin, size: 1, root, extensions: [] });
  const checkpoint = formatNote({ text, signatures: [{ name: logLine!.name, id: logLine!.id, signature }] });
  return { ...bundle, tlogProof: formatTlogProof({ index: 0, proof: [], checkpoint }) };
}

describe('a forged log proof on a genuine answer', () => {
  it.each([
    ['a junk 64-byte signature', new Uint8Array(64).fill(7)],
    ['a zero-length signature', new Uint8Array(0)],
  ])('%s: verify fails the log layer, evidence attests no logging, the ledger never had it', async (_, sig) => {
    const ring = Keyring.load(`${s.dir}/keys`).ring;
    const bundle = (await new Issuer(ring, namesFor('svc'), null).issue({
      answer: `never logged ${sig.length}`,
      prompt: 'q',
    })) as unknown as Record<string, unknown>;
    const doc = forged(bundle, sig);
    const v = await call(s.url, '/api/v1/verify', { json: doc });
    expect(v.status).toBe(200);
    expect(v.body.verdict.log).toMatchObject({ policyChecked: true, logRecognized: false });
    expect(v.body.verdict.log.ok === false || v.body.verdict.log.logRecognized === false).toBe(true);
    // Never presented as logged by this server's log.
    expect(v.body.verdict.overallOk && v.body.verdict.log.ok && v.body.verdict.log.logRecognized).toBe(false);
    const r = await call(s.url, '/api/v1/evidence', { json: doc });
    if (r.status === 200) {
      expect(r.body.attested.logged).toBeUndefined();
      expect(JSON.stringify(r.body.ai_act_support)).not.toMatch(/append-only transparency log under a signed checkpoint/);
    } else expect(r.status).toBeLessThan(500);
    const found = await call(s.url, '/api/transparency/ledger/inclusion', { json: { answer: bundle.answer } });
    expect(found.body.found).toBe(false);
  });
});
