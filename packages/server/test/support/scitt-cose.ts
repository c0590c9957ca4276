// The scitt-cose vectors from their files (Node tests; the core reads the derived hex JSON).
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const dir = fileURLToPath(new URL('../../../../test-vectors/external/scitt-cose/v1/', import.meta.url));

export function scittCoseVector(id: string) {
  const f = (n: string) => new Uint8Array(readFileSync(`${dir}${id}/${n}`));
  return {
    statement: f('statement.cose'),
    receipt: f('receipt.cose'),
    expected: JSON.parse(readFileSync(`${dir}${id}/expected.json`, 'utf8')),
  };
}
