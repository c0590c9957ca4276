// Replays test-vectors/*.json, the material a third party runs against its own implementation.
import { describe, expect, it } from 'vitest';
import { verifyBundle } from '../src/dispatch.js';
import { SvcError } from '../src/errors.js';
import { ourVectors } from './vectors-fs.js';
import { type Case, intentOf, optionsOf } from './vector-case.js';

const files = Object.entries(ourVectors).map(([path, data]) => ({
  name: path.split('/').pop()!,
  data: data as { description: string; cases: Case[] },
}));

describe('test-vectors/', () => {
  it('holds a file per kind, none empty', () => {
    const names = files.map((f) => f.name).sort();
    expect(names).toEqual([
      'consistency.json',
      'errors.json',
      'export.json',
      'proof.json',
      'record.json',
      'run.json',
      'sth.json',
      'transcript.json',
    ]);
    for (const f of files) {
      expect(typeof f.data.description, f.name).toBe('string');
      expect(f.data.cases.length, `${f.name} yields no case`).toBeGreaterThan(0);
    }
  });

  for (const f of files) {
    describe(f.name, () => {
      for (const c of f.data.cases) {
        it(c.description, async () => {
          expect(c.trustedKeys).toBeInstanceOf(Array);
          const expected = c.expected;
          if (!expected) throw new Error('a replayed case records its answer');
          // The recorded answer must say what the case declares it shows.
          if (c.intent.status !== undefined)
            expect({ status: expected.status, code: expected.code }).toEqual({ status: c.intent.status, code: c.intent.code });
          else expect(intentOf(expected.response, c.intent)).toEqual(c.intent);
          const input = c.inputText ?? c.input;
          let got: { status: number; response?: unknown; code?: string };
          try {
            got = {
              status: 200,
              response: await verifyBundle(input, optionsOf(c)),
            };
          } catch (e) {
            expect(e).toBeInstanceOf(SvcError);
            got = { status: (e as SvcError).status, code: (e as SvcError).code };
          }
          expect(got).toEqual(expected);
        });
      }
    });
  }
});
