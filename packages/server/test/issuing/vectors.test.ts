// The issuing decisions' vectors (test-vectors/issuing/, docs/wire-format.md s.14): the question a
// chat completion binds, and the token file's lines (hashes made by Python's hashlib).
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { matchToken, parseTokens, questionOf } from '../../src/internal.js';

const vectors = (name: string) => JSON.parse(readFileSync(new URL(`../../../../test-vectors/issuing/${name}`, import.meta.url), 'utf8'));

describe('test-vectors/issuing', () => {
  const binding = vectors('question-binding.json');
  for (const c of binding.cases)
    it(`question binding: ${c.name}`, () => {
      expect(questionOf(c.messages)).toEqual(c.expect);
    });

  const tokens = vectors('token-file.json');
  for (const t of tokens.tokens)
    it(`token ${t.name}: its line, and only its token matches it`, () => {
      const entries = parseTokens(t.line);
      expect(matchToken(entries, t.token)).toBe(t.name);
      expect(matchToken(entries, `${t.token}x`)).toBeNull();
    });
  for (const [i, f] of tokens.files.entries())
    it(`token file ${i}: ${f.error ? `refused at ${f.error}` : 'accepted'}`, () => {
      if (f.error) expect(() => parseTokens(f.text)).toThrow(new RegExp(f.error));
      else expect(parseTokens(f.text).map((e) => e.name)).toEqual(f.names);
    });
});
