// test-vectors/external/scitt-cose.json is derived (binary as hex, for the browser run of the core's
// tests): it must say exactly what the copied files say, and the copies what the originals say
// where the shared vectors sit beside this checkout.
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { scittCoseJson } from '@svc/tools/scitt-cose-json';

const root = fileURLToPath(new URL('../../../../', import.meta.url));
const copy = join(root, 'test-vectors', 'external', 'scitt-cose');
const original = join(root, '..', 'shared', 'vectors', 'scitt-cose');

describe('the scitt-cose vectors in the repository', () => {
  it('the derived JSON is the files, regenerated', () => {
    expect(readFileSync(join(root, 'test-vectors', 'external', 'scitt-cose.json'), 'utf8')).toBe(scittCoseJson());
  });

  it.skipIf(!existsSync(original))('the copies are byte for byte the originals', () => {
    for (const d of readdirSync(join(original, 'v1'), { withFileTypes: true }).filter((e) => e.isDirectory()))
      for (const f of readdirSync(join(original, 'v1', d.name)))
        expect(readFileSync(join(copy, 'v1', d.name, f)).equals(readFileSync(join(original, 'v1', d.name, f))), `${d.name}/${f}`).toBe(
          true,
        );
  });
});
