// A tiled log end to end in memory: notes signed with every type this project writes, tiles served
// from a tree, read back through the authenticating reader, and tlog-proofs; every mutation fails.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { leafHash } from '../../src/merkle/hash.js';
import { MemoryTree } from '../../src/merkle/memory.js';
import { consistencyProof, inclusionProof, treeRoot } from '../../src/merkle/prove.js';
import { sha256 } from '../../src/encoding/hash.js';
import {
  TileReader,
  TlogError,
  encodeEntryBundle,
  encodeTile,
  formatCheckpoint,
  formatTlogProof,
  logKeygen,
  noteSigner,
  openNote,
  parseTilePath,
  parseVkey,
  signNote,
  tileNodes,
  tilePath,
  verifyTlogProof,
  type SignatureType,
} from '../../src/tlog/index.js';

const seed = (n: number) => sha256(new Uint8Array([n]));
const ORIGIN = 'example.test/log';
const TYPES: SignatureType[] = ['ed25519', 'cosignature/v1', 'subtree/v1', 'mldsa87-subtree'];
const signers = TYPES.map((t, i) => noteSigner(ORIGIN, logKeygen(t, seed(i))));

function tree(n: number): { tree: MemoryTree; data: Uint8Array[] } {
  const t = new MemoryTree();
  const data: Uint8Array[] = [];
  for (let i = 0; i < n; i++) {
    const d = sha256(new Uint8Array([i & 255, i >> 8, i >> 16]));
    data.push(d);
    t.appendData(d);
  }
  return { tree: t, data };
}

/** Serves tiles and entry bundles of `t` at size `size` as a log would, with `tamper` applied. */
function served(t: MemoryTree, data: Uint8Array[], size: number, tamper?: (path: string, b: Uint8Array) => Uint8Array) {
  const fetched: string[] = [];
  const fetchTile = async (path: string): Promise<Uint8Array> => {
    fetched.push(path);
    const id = parseTilePath(path);
    if (!id) throw new Error(`404 ${path}`);
    const start = id.index * 256;
    let b: Uint8Array;
    if (id.level === 'entries') {
      if (start + id.width > size) throw new Error(`404 ${path}`);
      b = encodeEntryBundle(data.slice(start, start + id.width));
    } else {
      const per = 2 ** (8 * id.level);
      if ((start + id.width) * per > size) throw new Error(`404 ${path}`);
      b = encodeTile(tileNodes(id.level, id.index, id.width).map((n) => t.subtree(n.level, n.index)));
    }
    return tamper ? tamper(path, b) : b;
  };
  return { fetchTile, fetched };
}

describe('signature types', () => {
  it('each type signs a checkpoint that opens under its vkey, and the vkey round-trips', () => {
    const text = formatCheckpoint({ origin: ORIGIN, size: 3, root: sha256(new Uint8Array([1])), extensions: [] });
    for (const s of signers) {
      expect(parseVkey(s.vkey).id).toBe(s.id);
      const note = signNote(text, [s], 1_700_000_000);
      const opened = openNote(note, [parseVkey(s.vkey)]);
      expect(opened.verified[0]!.type).toBe(s.type);
      if (s.type !== 'ed25519') expect(opened.verified[0]!.timestamp).toBe(1_700_000_000);
      // Deterministic: the same key, text and time give the same bytes.
      expect(signNote(text, [s], 1_700_000_000)).toBe(note);
    }
  });

  it('a note signed by all four opens under all four, and under any one of them alone', () => {
    const text = formatCheckpoint({ origin: ORIGIN, size: 0, root: sha256(new Uint8Array()), extensions: [] });
    const note = signNote(text, signers, 5);
    expect(openNote(note, signers).verified).toHaveLength(4);
    for (const s of signers) expect(openNote(note, [s]).verified).toHaveLength(1);
  });

  it('a key of the same name but another ID is ignored; same ID, another name too', () => {
    const text = formatCheckpoint({ origin: ORIGIN, size: 0, root: sha256(new Uint8Array()), extensions: [] });
    const note = signNote(text, [signers[0]!], 0);
    const other = noteSigner(ORIGIN, logKeygen('ed25519', seed(99)));
    expect(() => openNote(note, [other])).toThrowError(/no signature by a known key/);
  });

  it('any single-byte change to a signed checkpoint makes it malformed or unverified', () => {
    const text = formatCheckpoint({ origin: ORIGIN, size: 12345, root: sha256(new Uint8Array([7])), extensions: [] });
    const note = new TextEncoder().encode(signNote(text, signers, 1_700_000_000));
    fc.assert(
      fc.property(fc.nat(note.length - 1), fc.integer({ min: 1, max: 255 }), (i, x) => {
        const m = note.slice();
        m[i] = m[i]! ^ x;
        try {
          // A change to a key name or ID turns its line into an unknown key's, which is ignored:
          // the note may still open, but never with all four signatures.
          return openNote(m, signers).verified.length < 4;
        } catch (e) {
          return e instanceof TlogError;
        }
      }),
      { numRuns: 200, seed: 20 },
    );
  });
});

describe('tile reader', () => {
  it('reads, proves and authenticates any tree, from any earlier size (property)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 1300 }), fc.nat(), fc.nat(), async (size, a, b) => {
        const { tree: t, data } = tree(size);
        const root = treeRoot(t, size);
        const { fetchTile } = served(t, data, size);
        const r = new TileReader(fetchTile, { size, root });
        await r.checkRoot();
        const index = a % size;
        expect(await r.inclusionProof(index, leafHash(data[index]!))).toEqual(inclusionProof(t, index, size));
        const old = 1 + (b % size);
        expect(await r.consistencyProof({ size: old, root: treeRoot(t, old) })).toEqual(old === size ? [] : consistencyProof(t, old, size));
        const start = Math.min(index, size - 1);
        const end = Math.min(size, start + 300);
        expect(await r.entries(start, end)).toEqual(data.slice(start, end));
      }),
      { numRuns: 25, seed: 7 },
    );
  });

  it('a changed byte in any tile or bundle it uses fails the read, never returns other data', async () => {
    const size = 70_000 % 1031; // 923: partial tiles on two levels
    const { tree: t, data } = tree(size);
    const root = treeRoot(t, size);
    const { fetchTile, fetched } = served(t, data, size);
    const honest = new TileReader(fetchTile, { size, root });
    await honest.checkRoot();
    await honest.entries(0, size);
    await honest.inclusionProof(size - 1);
    const paths = [...new Set(fetched)];
    expect(paths).toContain('tile/0/003.p/155');
    for (const path of paths) {
      for (const at of [0, 31, 32]) {
        const { fetchTile: lying } = served(t, data, size, (p, b) => {
          if (p !== path || at >= b.length) return b;
          const c = b.slice();
          c[at] = c[at]! ^ 1;
          return c;
        });
        const r = new TileReader(lying, { size, root });
        await expect(
          (async () => {
            await r.checkRoot();
            await r.entries(0, size);
            await r.inclusionProof(size - 1);
          })(),
        ).rejects.toThrow();
      }
    }
  });

  it('a fork is caught: a tree that does not extend the old one is inconsistent', async () => {
    const { tree: t, data } = tree(600);
    const { tree: u } = tree(300);
    u.appendData(new Uint8Array(32)); // 301 leaves that differ from t's at index 300
    const r = new TileReader(served(t, data, 600).fetchTile, { size: 600, root: treeRoot(t, 600) });
    await expect(r.consistencyProof({ size: 301, root: treeRoot(u, 301) })).rejects.toMatchObject({ code: 'inconsistent' });
    await expect(r.consistencyProof({ size: 601, root: treeRoot(t, 600) })).rejects.toMatchObject({ code: 'inconsistent' });
  });

  it('falls back to the full tile when a partial one is gone', async () => {
    const { tree: t, data } = tree(512);
    const { fetchTile } = served(t, data, 512);
    // A reader at size 300 asks for tile/0/001.p/44 and entries/001.p/44; only the full ones exist now.
    const gone = async (p: string) => {
      if (p.includes('/001.p/')) throw new Error('404');
      return fetchTile(p);
    };
    const r = new TileReader(gone, { size: 300, root: treeRoot(t, 300) });
    await r.checkRoot();
    expect(await r.entries(256, 300)).toEqual(data.slice(256, 300));
  });
});

describe('tlog-proof', () => {
  const size = 777;
  const { tree: t, data } = tree(size);
  const text = formatCheckpoint({ origin: ORIGIN, size, root: treeRoot(t, size), extensions: [] });
  const checkpoint = signNote(text, signers, 1_700_000_000);
  const index = 500;
  const proof = formatTlogProof({ index, proof: inclusionProof(t, index, size), checkpoint });

  it('verifies for its leaf under each log key, and counts no cosigners', () => {
    for (const s of signers) {
      const r = verifyTlogProof(proof, leafHash(data[index]!), { origin: ORIGIN, logKeys: [s] });
      expect(r.index).toBe(index);
      expect(r.log).toHaveLength(1);
      expect(r.cosigners).toHaveLength(0);
    }
    expect(proof.startsWith(`c2sp.org/tlog-proof@v1\nindex 500\n`)).toBe(true);
  });

  it('fails for another leaf, another origin, or keys of another log', () => {
    expect(() => verifyTlogProof(proof, leafHash(data[index + 1]!), { origin: ORIGIN, logKeys: signers })).toThrowError(/not included/);
    expect(() => verifyTlogProof(proof, leafHash(data[index]!), { origin: 'other/log', logKeys: signers })).toThrowError(/origin/);
    const stranger = noteSigner(ORIGIN, logKeygen('ed25519', seed(50)));
    expect(() => verifyTlogProof(proof, leafHash(data[index]!), { origin: ORIGIN, logKeys: [stranger] })).toThrow(TlogError);
  });

  it('any single-byte change fails (property over every position)', () => {
    const bytes = new TextEncoder().encode(proof);
    const leaf = leafHash(data[index]!);
    fc.assert(
      fc.property(fc.nat(bytes.length - 1), fc.integer({ min: 1, max: 255 }), (i, x) => {
        const m = bytes.slice();
        m[i] = m[i]! ^ x;
        let text: string;
        try {
          text = new TextDecoder('utf-8', { fatal: true }).decode(m);
        } catch {
          return true; // not text: no proof at all
        }
        try {
          verifyTlogProof(text, leaf, { origin: ORIGIN, logKeys: signers });
          return false;
        } catch (e) {
          return e instanceof TlogError;
        }
      }),
      { numRuns: 80, seed: 3 },
    );
  });

  it('paths: only the canonical spelling of a tile path parses', () => {
    for (const p of ['tile/0/000', 'tile/63/x999/999.p/255', 'tile/entries/x001/000.p/1']) expect(tilePath(parseTilePath(p)!)).toBe(p);
    for (const p of [
      'tile/00/000',
      'tile/64/000',
      'tile/0/x000/001',
      'tile/0/1',
      'tile/0/000.p/256',
      'tile/0/000.p/0',
      'tile/0/000.p/01',
      'tile/0/000/',
      '/tile/0/000',
      'tile/-1/000',
    ])
      expect(parseTilePath(p)).toBeNull();
  });
});
