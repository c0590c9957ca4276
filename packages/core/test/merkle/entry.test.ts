// `@svc/core/merkle` re-exports the tree, its tiles and hex from where they live: one definition,
// reachable without the signature code behind the main entry, which no longer exports the tree.
import { describe, expect, it } from 'vitest';
import * as coreEntry from '../../src/index.js';
import * as primitivesEntry from '../../src/primitives-entry.js';
import * as merkleModule from '../../src/merkle/index.js';
import * as merkleEntry from '../../src/merkle-entry.js';
import * as tlogEntry from '../../src/tlog/index.js';

// Plain records of each entry's exports, to be read by name.
const core: Record<string, unknown> = { ...coreEntry };
const defs: Record<string, unknown> = { ...merkleModule, ...primitivesEntry };
const tlog: Record<string, unknown> = { ...tlogEntry };
const byName: Record<string, unknown> = { ...merkleEntry };
const merkle = merkleEntry;

describe('@svc/core/merkle', () => {
  it('is the same functions as the merkle module, the primitives and tlog entries, not copies', () => {
    for (const name of [
      'leafHash',
      'nodeHash',
      'inclusionProof',
      'consistencyProof',
      'treeRoot',
      'planReads',
      'frontier',
      'integrate',
      'toHex',
      'fromHex',
    ] as const) {
      expect(byName[name], name).toBe(defs[name]);
      expect(core[name], `${name} is not in the main entry`).toBeUndefined();
    }
    for (const name of [
      'encodeTile',
      'decodeTile',
      'encodeEntryBundle',
      'decodeEntryBundle',
      'tileNodes',
      'tileWidth',
      'tilePath',
      'parseTilePath',
    ] as const)
      expect(byName[name], name).toBe(tlog[name]);
  });

  it('builds a root and a proof that verify', () => {
    const leaves = Array.from({ length: 7 }, (_, i) => merkle.leafHash(new Uint8Array([i])));
    const tree = new merkle.MemoryTree();
    for (const l of leaves) tree.appendLeafHash(l);
    const root = merkle.treeRoot(tree, 7);
    const proof = merkle.inclusionProof(tree, 3, 7);
    expect(merkle.verifyInclusion(3, 7, leaves[3]!, proof, root)).toBe(true);
    expect(merkle.verifyInclusion(3, 7, leaves[4]!, proof, root)).toBe(false);
  });
});
