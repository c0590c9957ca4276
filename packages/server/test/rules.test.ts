// docs/rules.md maps every rule id to the code that enforces it and the test that catches its loss.
// This keeps the map true: every file and symbol it names exists, the code cites the rule by its
// id, and the named test exists.
import { describe, expect, it } from 'vitest';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const ROW = /^\| ([A-Z0-9-]+) \| (.+) \| `([^`]+)` `([^`]+)` \| `([^`]+)` "([^"]+)" \|$/;
const rows = readFileSync(join(root, 'docs/rules.md'), 'utf8')
  .split('\n')
  .filter((l) => /^\| [A-Z]/.test(l) && !l.startsWith('| id '))
  .map((l) => {
    const m = ROW.exec(l);
    if (!m) throw new Error(`docs/rules.md: a row not of the form | id | rule | \`file\` \`symbol\` | \`test file\` "test" |: ${l}`);
    return { id: m[1]!, rule: m[2]!, file: m[3]!, symbol: m[4]!, testFile: m[5]!, test: m[6]! };
  });

describe('docs/rules.md', () => {
  it('covers every rule id of the spec', () => {
    const ids = rows.map((r) => r.id);
    const spec = [
      'V1',
      'V2',
      'V3',
      'V4',
      'V5',
      'V6',
      'V7',
      'V8',
      'V9',
      'V10',
      'V11',
      'E1',
      'E2',
      'E3',
      'E4',
      'E5',
      'E6',
      'S1',
      'S2',
      'S3',
      'ERR',
    ];
    for (const id of spec) expect(ids, id).toContain(id);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it.each(rows)('$id: its code exists, holds $symbol and cites $id; its test exists', (r) => {
    const code = join(root, r.file);
    expect(existsSync(code), r.file).toBe(true);
    const text = readFileSync(code, 'utf8');
    expect(text, `${r.file} has no ${r.symbol}`).toContain(r.symbol);
    expect(new RegExp(`\\b${r.id}\\b`).test(text), `${r.file} does not cite ${r.id} in a comment`).toBe(true);
    const test = join(root, r.testFile);
    expect(existsSync(test), r.testFile).toBe(true);
    expect(readFileSync(test, 'utf8'), `${r.testFile} has no test "${r.test}"`).toContain(r.test);
  });
});
