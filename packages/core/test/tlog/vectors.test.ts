// Replays test-vectors/tlog/: each case's declared intent (valid or not, which keys verify, which
// refusal), checked against this implementation; the tiles are read back through the
// authenticating reader, so they are judged by the checkpoint root, not by recorded bytes.
import { describe, expect, it } from 'vitest';
import { fromBase64, fromHex, toHex } from '../../src/primitives-entry.js';
import { MemoryTree, leafHash, treeRoot } from '../../src/merkle-entry.js';
import {
  AddEntriesReader,
  MIRROR_INFO_TYPE,
  TileReader,
  TlogError,
  checkUpload,
  cosignedMessage,
  decideSignSubtree,
  openNote,
  openSubtreeSignatures,
  parseCheckpoint,
  parseMirrorInfo,
  parseSignSubtree,
  parseVkey,
  verifyPackage,
  verifyTlogProof,
  type NoteSigner,
} from '../../src/tlog/index.js';
import { tlogVectors } from '../vectors-fs.js';

const file = (name: string) => {
  const v = Object.entries(tlogVectors).find(([p]) => p.endsWith(`/${name}`));
  if (!v) throw new Error(`test-vectors/tlog/${name} is missing`);
  return v[1] as any;
};

function outcome<T>(f: () => T): { ok: true; value: T } | { ok: false; code: string } {
  try {
    return { ok: true, value: f() };
  } catch (e) {
    if (!(e instanceof TlogError)) throw e;
    return { ok: false, code: e.code };
  }
}

describe('test-vectors/tlog/notes.json', () => {
  const v = file('notes.json');
  it('has vkeys and notes, valid and not', () => {
    expect(v.vkeys.length).toBeGreaterThan(5);
    expect(v.notes.length).toBeGreaterThan(8);
    expect(v.notes.some((c: any) => c.intent.opens) && v.notes.some((c: any) => !c.intent.opens)).toBe(true);
  });
  it('every vkey parses or is refused as its intent says', () => {
    for (const c of v.vkeys) {
      const r = outcome(() => parseVkey(c.vkey));
      if (c.intent.valid) {
        expect(r.ok, c.description).toBe(true);
        if (r.ok) expect({ type: r.value.type, name: r.value.name }, c.description).toEqual({ type: c.intent.type, name: c.intent.name });
      } else expect(r, c.description).toEqual({ ok: false, code: c.intent.code });
    }
  });
  it('every note opens with exactly the intended keys, or is refused with the intended code', () => {
    for (const c of v.notes) {
      const r = outcome(() => openNote(c.note, c.vkeys.map(parseVkey)));
      if (c.intent.opens) {
        expect(r.ok, c.description).toBe(true);
        if (r.ok)
          expect(
            r.value.verified.map((x) => x.vkey),
            c.description,
          ).toEqual(c.intent.verified);
      } else expect(r, c.description).toEqual({ ok: false, code: c.intent.code });
    }
  });
});

describe('test-vectors/tlog/tiles.json', () => {
  const v = file('tiles.json');
  it('the tiles authenticate against the checkpoint and the entries are the leaves', async () => {
    const c = parseCheckpoint(openNote(v.checkpoint, v.vkeys.map(parseVkey)).note.text);
    const reader = new TileReader(async (p) => {
      const hex = v.tiles[p];
      if (hex === undefined) throw new Error(`404 ${p}`);
      return fromHex(hex)!;
    }, c);
    await reader.checkRoot();
    expect(await reader.entries(0, c.size)).toEqual(v.leaves.map((h: string) => fromHex(h)));
  });
  it('one changed byte in any tile makes the reader fail', async () => {
    const c = parseCheckpoint(openNote(v.checkpoint, v.vkeys.map(parseVkey)).note.text);
    for (const path of Object.keys(v.tiles)) {
      const bad = fromHex(v.tiles[path])!;
      bad[bad.length - 1]! ^= 1;
      const reader = new TileReader(async (p) => (p === path ? bad : fromHex(v.tiles[p])!), c);
      await expect(
        (async () => {
          await reader.checkRoot();
          await reader.entries(0, c.size);
        })(),
        path,
      ).rejects.toThrow();
    }
  });
});

describe('test-vectors/tlog/tlog-proof.json', () => {
  const v = file('tlog-proof.json');
  it('every proof verifies for the leaf, or fails with the intended code', () => {
    expect(v.cases.length).toBeGreaterThan(5);
    for (const c of v.cases) {
      const r = outcome(() => verifyTlogProof(c.proof, fromHex(v.leaf_hash)!, { origin: v.origin, logKeys: v.vkeys.map(parseVkey) }));
      if (c.intent.valid) expect(r.ok && r.value.index, c.description).toBe(c.intent.index);
      else expect(r, c.description).toEqual({ ok: false, code: c.intent.code });
    }
  });
  it('the proof is for the leaf hash of entry 123 of tiles.json', () => {
    expect(v.leaf_hash).toBe(toHex(leafHash(fromHex(file('tiles.json').leaves[123])!)));
  });
});

describe('test-vectors/tlog/sign-subtree.json', () => {
  const v = file('sign-subtree.json');
  const key = parseVkey(v.witness_vkey);
  it('has answers of every status it covers', () => {
    expect(new Set(v.cases.map((c: any) => c.intent))).toEqual(new Set([200, 400, 403, 422]));
  });
  it('each request gets its status; each 200 line verifies over exactly the cosigned_message given', () => {
    for (const c of v.cases) {
      // The witness's public key suffices to decide: the signing is the only step that needs the secret.
      const a = decideSignSubtree(c.body, (o) => o === v.origin, [key as NoteSigner]);
      expect(a.status, c.description).toBe(c.intent);
      if (c.intent !== 200) continue;
      const r = parseSignSubtree(c.body);
      const s = { origin: v.origin, start: r.start, end: r.end, hash: r.hash };
      expect(toHex(cosignedMessage(key.name, 0, s)), c.description).toBe(c.cosigned_message_hex);
      expect(openSubtreeSignatures(c.response, s, [key]), c.description).toHaveLength(1);
      expect(() => openSubtreeSignatures(c.response, { ...s, end: s.end - 1 }, [key])).toThrow(TlogError);
    }
  });
});

describe('test-vectors/tlog/add-entries.json', () => {
  const v = file('add-entries.json');
  const entry = (i: number) => new TextEncoder().encode(`mirrored entry ${i}`);
  it('has uploads whole, cut and empty', () => {
    expect(v.uploads.map((u: any) => u.complete)).toEqual([true, false, true, true]);
  });
  it('each body reads as its packages, each of which authenticates against the root at upload_end', () => {
    for (const u of v.uploads) {
      const r = new AddEntriesReader();
      r.push(fromBase64(u.body_base64)!);
      expect(r.header(), u.description).toMatchObject({ origin: v.origin, start: u.upload_start, end: u.upload_end });
      const got = [];
      for (let p = r.next(); p; p = r.next()) {
        expect(p.entries.map(toHex)).toEqual(Array.from({ length: p.end - p.start }, (_, k) => toHex(entry(p!.start + k))));
        const held = Array.from({ length: p.start - p.subtreeStart }, (_, k) => leafHash(entry(p!.subtreeStart + k)));
        expect(verifyPackage(p, held, { size: u.upload_end, root: fromBase64(v.roots[u.upload_end])! }), u.description).toBe(true);
        got.push({ subtree_start: p.subtreeStart, start: p.start, end: p.end, proof_hashes: p.proof.length });
      }
      expect(got, u.description).toEqual(u.packages);
      expect(r.pending).toBe(0);
      expect(r.packages.complete).toBe(u.complete);
    }
  });
});

describe('test-vectors/tlog/mirror.json', () => {
  const v = file('mirror.json');
  const tree = new MemoryTree();
  for (let i = 0; i < 600; i++) tree.appendData(new TextEncoder().encode(`mirrored entry ${i}`));
  const head = (size: number) => ({ size, root: treeRoot(tree, size) });
  it('each add-entries header gets the status the spec requires, in its order', () => {
    expect(v.uploads.map((u: any) => u.status)).toEqual([404, 422, 409, 409, 409, 409, 'proceed', 'proceed', 'proceed']);
    for (const u of v.uploads) {
      const state = u.state && { pending: u.state.pending_sizes.map(head), mirrored: head(u.state.mirrored_size), next: u.state.next };
      const c = checkUpload({ origin: v.origin, start: u.upload_start, end: u.upload_end, ticket: new Uint8Array(0) }, state ?? undefined);
      if (u.status === 'proceed') expect(c, u.description).toEqual({ ok: true, checkpoint: head(u.proves_into_size) });
      else
        expect(c, u.description).toMatchObject({
          ok: false,
          status: u.status,
          ...(u.mirror_info ? { body: u.mirror_info, contentType: MIRROR_INFO_TYPE } : {}),
        });
    }
  });
  it('mirror-info bodies parse exactly when valid', () => {
    for (const c of v.mirror_info) {
      if (!c.valid) expect(() => parseMirrorInfo(c.text), JSON.stringify(c.text)).toThrow(TlogError);
      else expect(parseMirrorInfo(c.text)).toEqual({ size: c.parsed.size, next: c.parsed.next, ticket: fromBase64(c.parsed.ticket) });
    }
  });
});
