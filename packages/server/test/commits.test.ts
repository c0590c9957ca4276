// The log as documentation (issue 54 part 8): every commit subject since the rule was adopted is
// `area: imperative summary` in at most 72 characters. Where the clone is shallow and the first
// commit under the rule is not there, the commits that are there are held to it.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../../', import.meta.url));
/** The last commit before the rule: everything after it follows it. */
const ADOPTED_AFTER = 'c47a10c';
const git = (...args: string[]) => spawnSync('git', args, { cwd: root, encoding: 'utf8' });

/** Why a subject breaks the rule, or null. */
export function subjectError(subject: string): string | null {
  if (subject.length > 72) return `${subject.length} characters (at most 72)`;
  if (!/^[a-z0-9][a-z0-9 ,./_-]*: \S/.test(subject)) return 'not `area: summary` (a lower-case area, a colon, a space)';
  if (/[.]$/.test(subject)) return 'ends with a full stop';
  return null;
}

describe('commit subjects', () => {
  it('the rule itself: it refuses what it should and takes what it should', () => {
    expect(subjectError('issuing: refuse JSON nested past 128 deep on the front, both ways')).toBeNull();
    expect(subjectError('core, tlog: share the note verifier')).toBeNull();
    expect(subjectError('x'.repeat(73))).toMatch(/73 characters/);
    expect(subjectError('Fixed the front')).toMatch(/area: summary/);
    expect(subjectError('Issuing: fix')).toMatch(/area: summary/);
    expect(subjectError('docs: say so.')).toMatch(/full stop/);
  });

  it('every subject since the rule was adopted follows it', (ctx) => {
    if (git('rev-parse', '--git-dir').status !== 0) {
      console.warn('commits.test: skipped: this tree is not a git clone, so it has no log to read');
      ctx.skip();
    }
    const based = git('cat-file', '-e', `${ADOPTED_AFTER}^{commit}`).status === 0;
    const log = git('log', '--no-merges', '--format=%h %s', ...(based ? [`${ADOPTED_AFTER}..HEAD`] : ['-n', '20']));
    expect(log.status, log.stderr).toBe(0);
    const bad = log.stdout
      .split('\n')
      .filter(Boolean)
      .map((l) => [l.slice(0, l.indexOf(' ')), l.slice(l.indexOf(' ') + 1)] as const)
      .flatMap(([h, s]) => {
        const why = subjectError(s);
        return why ? [`${h} "${s}": ${why}`] : [];
      });
    expect(bad).toEqual([]);
  });
});
