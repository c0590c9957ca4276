// `svc issue --jsonl` on hostile standard input: lines that are not JSON, not answer objects, too
// deep, too long, or cut short. Each stops the run with exit 2 naming its line, and every bundle
// printed before it is in the log; blank lines are skipped.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sha256, utf8 } from '@svc/core/primitives';
import { describe, expect, it } from 'vitest';
import { ensureKeys, loadConfig } from '../../src/internal.js';
import { openLedgerAt } from '../support/ledger-at.js';
import { runSvc } from '../support/svc-cli.js';
import { seedKeys } from '../support/keys.js';

const dir = mkdtempSync(join(tmpdir(), 'svc-jsonl-'));
seedKeys(dir);
ensureKeys(loadConfig({ SVC_DATA_DIR: dir }), () => {});
const env = { SVC_DATA_DIR: dir, SVC_LOG: '0' };

async function logged(answers: string[]): Promise<boolean[]> {
  const ledger = await openLedgerAt(env);
  try {
    return await Promise.all(answers.map(async (a) => (await ledger.find(sha256(utf8(a)))) !== undefined));
  } finally {
    await ledger.close();
  }
}

describe('svc issue --jsonl on hostile input', () => {
  const bad: [string, string][] = [
    ['not JSON', '{"answer":'],
    ['cut short mid-line', '{"answer":"cut'],
    ['not an object', '[1,2,3]'],
    ['an unknown member', '{"answer":"a","answr":"b"}'],
    ['deep nesting', `{"answer":"a","model":${'['.repeat(10_000)}${']'.repeat(10_000)}}`],
    ['an answer over the limit', JSON.stringify({ answer: 'x'.repeat(256 * 1024 + 1) })],
    ['a lone surrogate', '{"answer":"\\ud800"}'],
    ['binary junk', '\u0000\u0001\uFFFD\u0007'],
  ];
  for (const [what, line] of bad)
    it(`${what}: exit 2 naming line 3 (after a good line and a blank one); whatever was printed is logged`, async () => {
      const good = `before ${what} ${Math.random()}`;
      const r = await runSvc(['issue', '--jsonl'], { env, input: `${JSON.stringify({ answer: good })}\n\n${line}\n` });
      expect(r.code, r.err).toBe(2);
      expect(r.err).toMatch(/line 3/);
      const printed =
        r.out.trim() === ''
          ? []
          : r.out
              .trim()
              .split('\n')
              .map((l) => JSON.parse(l).answer);
      // The good line is printed only when its batch was signed before the bad line was read.
      expect(printed.every((a) => a === good)).toBe(true);
      expect(await logged(printed)).toEqual(printed.map(() => true));
    }, 60_000);
});
