// The scitt-cose vectors as one JSON file (binary files as hex) for tests that run in a browser too,
// where a binary file cannot be imported. Derived, never edited: `node tools/lib/scitt-cose-json.mjs`
// writes it, and packages/server/test/interop/scitt-cose-copy.test.ts checks it against the files.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const dir = fileURLToPath(new URL('../../test-vectors/external/scitt-cose/', import.meta.url));

export function scittCoseJson() {
  const manifest = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8'));
  const vectors = manifest.vectors.map((m) => {
    const d = join(dir, m.dir);
    const hex = (f) => readFileSync(join(d, f)).toString('hex');
    const text = (f) => readFileSync(join(d, f), 'utf8');
    return {
      id: m.id,
      expected: JSON.parse(text('expected.json')),
      statement: hex('statement.cose'),
      receipt: hex('receipt.cose'),
      payload: hex('payload.bin'),
      issuerKey: text('issuer-key.pub'),
      logKey: text('log-key.pub'),
    };
  });
  const files = readdirSync(join(dir, 'v1'));
  if (files.length !== vectors.length + 1) throw new Error('a vector folder is not in the manifest');
  return `${JSON.stringify({ note: 'derived from test-vectors/external/scitt-cose by tools/lib/scitt-cose-json.mjs', leaf_entry_definition: manifest.leaf_entry_definition, vectors }, null, 1)}\n`;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) writeFileSync(join(dir, '..', 'scitt-cose.json'), scittCoseJson());
