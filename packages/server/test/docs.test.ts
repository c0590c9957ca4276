// The README is a front page and the guides hold the rest (#44 row 9): every code sample is an
// excerpt of an example the tests run, every runnable block is run by the first-hour script, and
// every relative link and anchor resolves.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const read = (f: string) => readFileSync(join(root, f), 'utf8');
const GUIDES = ['library', 'server', 'operating', 'formats', 'cli', 'issuing', 'security', 'development'].map((g) => `docs/${g}.md`);
/** The README and every document of docs/ (the copied specification and the generated reference aside). */
const DOCUMENTS = [
  'README.md',
  ...readdirSync(join(root, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens. */
export function slug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N} _-]/gu, '')
    .replace(/ /g, '-');
}
const anchors = (md: string) => new Set([...md.matchAll(/^#{1,6} (.+)$/gm)].map((m) => slug(m[1]!)));

/** A sample's line as compared: trimmed, a trailing `// comment` dropped. */
const code = (line: string) => line.trim().replace(/\s+\/\/\s.*$/, '');

describe('the README and the guides', () => {
  it('the README is a front page under 150 lines that starts with the two commands and links every guide', () => {
    const readme = read('README.md');
    expect(readme.split('\n').length).toBeLessThan(150);
    const first = /```sh\n(.*)\n(.*)\n```/.exec(readme)!;
    expect(first[1]).toMatch(/^npm install && npm start\s/);
    expect(first[2]).toMatch(/^npm install && npm test\s/);
    expect(readFileSync(join(root, '.ci/run'), 'utf8')).toMatch(/npm install[^\n]*&& npm test/);
    for (const g of GUIDES) {
      expect(existsSync(join(root, g)), g).toBe(true);
      expect(readme, `the README links ${g}`).toContain(`](${g})`);
    }
    expect(readme).toMatch(/never a declaration of conformity|never a\s+declaration of conformity/);
  });

  it('every relative link and anchor resolves', () => {
    let links = 0;
    for (const f of DOCUMENTS) {
      const md = read(f);
      for (const m of md.matchAll(/\]\(([^)\s]+)\)/g)) {
        const target = m[1]!;
        if (/^[a-z]+:/.test(target)) continue;
        links++;
        const [path, anchor] = target.split('#') as [string, string | undefined];
        const file = path ? join(root, dirname(f), path) : join(root, f);
        expect(existsSync(file), `${f}: ${target}`).toBe(true);
        if (anchor && statSync(file).isFile()) expect(anchors(readFileSync(file, 'utf8')).has(anchor), `${f}: ${target}`).toBe(true);
      }
    }
    expect(links).toBeGreaterThan(40);
  });

  it('every js or ts sample is an excerpt of an example the tests run: its lines found in order', () => {
    const examplesTest = read('packages/server/test/examples.test.ts');
    const runnable = [
      ...read('docs/formats.md').matchAll(/node (examples\/\S+)/g),
      ...read('docs/issuing.md').matchAll(/node (examples\/\S+)/g),
    ].map((m) => m[1]);
    let samples = 0;
    for (const f of DOCUMENTS) {
      const md = read(f);
      for (const m of md.matchAll(/(?:<!-- excerpt: (\S+) -->\n)?```(?:js|ts|javascript|typescript)\n([\s\S]*?)```/g)) {
        samples++;
        const source = m[1];
        expect(source, `${f}: a sample with no <!-- excerpt: FILE --> above it:\n${m[2]!.slice(0, 200)}`).toBeDefined();
        const ex = source!.replace(/^examples\//, '');
        expect(
          examplesTest.includes(`'${ex}'`) || runnable.includes(source!) || read('docs/cli.md').includes(`node ${source}`),
          `${source} is run by the tests`,
        ).toBe(true);
        const lines = read(source!).split('\n').map(code);
        let at = 0;
        for (const line of m[2]!.split('\n').map(code)) {
          if (!line || line.startsWith('//')) continue;
          const found = lines.indexOf(line, at);
          expect(found, `${f}: "${line}" is not in ${source} (after line ${at})`).toBeGreaterThanOrEqual(0);
          at = found + 1;
        }
      }
    }
    expect(samples).toBeGreaterThanOrEqual(6);
  });

  it("the anchor rule is GitHub's", () => {
    expect(slug('Verify with jose (JWS and COSE envelopes)')).toBe('verify-with-jose-jws-and-cose-envelopes');
    expect(slug('SCITT: the ledger as a transparency service')).toBe('scitt-the-ledger-as-a-transparency-service');
    expect(slug('`svc issue --jsonl`')).toBe('svc-issue---jsonl');
  });
});
