// Documents made by earlier versions still verify (issue 54: records and bundles made by the last
// landed version). test-vectors/*.json are regenerated whenever a format changes, so they show
// what today's code makes; test-vectors/kept/ holds what an earlier build made, written once by
// tools/scripts/keep-vectors.mjs and never again, verified here with today's code.
import { describe, expect, it } from 'vitest';
import { verifyBundle } from '../src/dispatch.js';
import { sha256 } from '../src/encoding/hash.js';
import { toHex, utf8 } from '../src/encoding/bytes.js';
import { keptVectors } from './vectors-fs.js';
import { type Case, intentOf, optionsOf } from './vector-case.js';

// Each kept file's SHA-256: a kept file is never rewritten, so a change to one shows here as well.
const KEPT: Record<string, string> = {
  '2026-12-03.json': '3b536edf980c4d093336190867ad747a5c14a463ec504d598db2a4e928c26b3a',
};

const files = Object.entries(keptVectors).map(([path, text]) => ({ name: path.split('/').pop()!, text }));
const casesOf = (text: string) => (JSON.parse(text) as { cases: Case[] }).cases;

describe('test-vectors/kept: what earlier versions made still verifies', () => {
  it('holds every kept file, each unchanged since it was written', () => {
    expect(files.map((f) => f.name).sort()).toEqual(Object.keys(KEPT).sort());
    for (const f of files) expect(toHex(sha256(utf8(f.text))), f.name).toBe(KEPT[f.name]);
  });

  it('covers every kind a record or bundle can be, each case one the maker meant to verify', () => {
    for (const f of files) {
      const cases = casesOf(f.text);
      const kinds = new Set(cases.map((c) => c.description.split(':')[0]));
      expect([...kinds].sort(), f.name).toEqual(['consistency', 'export', 'proof', 'record', 'run', 'sth', 'transcript']);
      for (const c of cases) expect(c.intent.overallOk, c.description).toBe(true);
    }
  });

  for (const f of files)
    describe(f.name, () => {
      for (const c of casesOf(f.text))
        it(c.description, async () => {
          const res = await verifyBundle(c.inputText ?? c.input, optionsOf(c));
          expect(intentOf(res, c.intent)).toEqual(c.intent);
        });
    });

  it('can fail: a kept document with its answer changed no longer verifies', async () => {
    const c = casesOf(files[0]!.text).find((x) => x.description.startsWith('proof: plain answer'))!;
    const damaged = { ...(c.input as Record<string, unknown>), answer: 'another answer' };
    const res = await verifyBundle(damaged, optionsOf(c));
    expect(intentOf(res, c.intent)).not.toEqual(c.intent);
    expect(res.verdict.overallOk).toBe(false);
  });
});
