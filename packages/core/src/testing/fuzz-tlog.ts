// A mutation fuzzer for the C2SP formats: signed checkpoints, verifier keys, tlog-proofs, tiles and
// witness sign-subtree requests, mirror add-entries bodies and mirror-info answers.
// What must hold for every input: only TlogError is thrown, no call is slow, and nothing changed in
// signed or hashed content is accepted (a note opening under every log key has the original text
// and signatures; a proof that verifies is for the original index and root; tiles that read give
// the original entries; a witness signs a subtree only with the hash the tree has there; a package
// of entries that authenticates holds the log's entries). Zero I/O:
// the clock is handed in.
import { sha256 } from '../encoding/hash.js';
import { bytesEqual, utf8 } from '../encoding/bytes.js';
import { leafHash } from '../merkle/hash.js';
import { MemoryTree } from '../merkle/memory.js';
import { inclusionProof, rangeHash, treeRoot } from '../merkle/prove.js';
import { isSubtree, subtreeProof } from '../merkle/subtree.js';
import { formatCheckpoint } from '../tlog/checkpoint.js';
import { TlogError } from '../tlog/errors.js';
import { noteSigner, openNote, parseVkey, signNote } from '../tlog/keys.js';
import { formatTlogProof, verifyTlogProof } from '../tlog/proof.js';
import { decideSignSubtree, formatSignSubtree, parseSignSubtree } from '../tlog/sign-subtree.js';
import { AddEntriesReader, formatAddEntries, verifyPackage } from '../tlog/add-entries.js';
import { formatMirrorInfo, parseMirrorInfo } from '../tlog/mirror.js';
import { TileReader } from '../tlog/reader.js';
import { logKeygen } from '../tlog/signatures.js';
import { encodeEntryBundle, encodeTile, tileNodes, tilePath, tileWidth } from '../tlog/tiles.js';
import { type FuzzFinding, prng } from './fuzz.js';

const ORIGIN = 'fuzz.example/log';

/** The valid material mutants are made from, the same for the same seed. */
function corpus(seed: number) {
  const s = (n: string) => sha256(utf8(`fuzz-tlog/${seed}/${n}`));
  const signers = [
    noteSigner(ORIGIN, logKeygen('subtree/v1', s('a'))),
    noteSigner(ORIGIN, logKeygen('mldsa87-subtree', s('b'))),
    noteSigner(ORIGIN, logKeygen('ed25519', s('c'))),
  ];
  const witness = noteSigner('witness.fuzz.example/w', logKeygen('cosignature/v1', s('w')));
  const size = 260 + (seed % 40);
  const leaves = Array.from({ length: size }, (_, i) => sha256(utf8(`fuzz leaf ${seed}/${i}`)));
  const tree = new MemoryTree();
  for (const l of leaves) tree.appendData(l);
  const root = treeRoot(tree, size);
  const text = formatCheckpoint({ origin: ORIGIN, size, root, extensions: [] });
  const checkpoint = signNote(text, signers, 1_700_000_000) + signNote(text, [witness], 1_700_000_001).slice(text.length + 1);
  const index = seed % size;
  const proof = formatTlogProof({ index, proof: inclusionProof(tree, index, size), checkpoint });
  const tiles = new Map<string, Uint8Array>();
  for (let n = 0; n * 256 < size; n++) {
    const w = tileWidth(0, n, size);
    tiles.set(tilePath({ level: 0, index: n, width: w }), encodeTile(tileNodes(0, n, w).map((x) => tree.subtree(x.level, x.index))));
    tiles.set(tilePath({ level: 'entries', index: n, width: w }), encodeEntryBundle(leaves.slice(n * 256, n * 256 + w)));
  }
  tiles.set(tilePath({ level: 1, index: 0, width: 1 }), encodeTile([tree.subtree(8, 0)]));
  // A subtree/v1 witness that cosigned the checkpoint, and a request to sign the subtree [256, size).
  const subtreeWitness = noteSigner('witness.fuzz.example/s', logKeygen('subtree/v1', s('s')));
  const cosigned = signNote(text, [signers[2]!, subtreeWitness], 1_700_000_002);
  const signSubtree = formatSignSubtree({
    start: 256,
    end: size,
    hash: rangeHash(tree, 256, size),
    proof: subtreeProof(tree, 256, size, size),
    checkpoint: cosigned,
  });
  const addEntries = formatAddEntries({ origin: ORIGIN, start: 200, end: size, ticket: utf8('t') }, (i) => leaves[i]!, tree);
  const mirrorInfo = formatMirrorInfo({ size, next: 256, ticket: utf8('ticket') });
  return {
    signers,
    witness,
    size,
    leaves,
    tree,
    root,
    text,
    checkpoint,
    index,
    proof,
    tiles,
    subtreeWitness,
    signSubtree,
    addEntries,
    mirrorInfo,
  };
}

const enc = new TextEncoder();
const dec = new TextDecoder();

/** One byte-level change of the kinds an attacker makes to text and binary files. */
function mutateBytes(b: Uint8Array, r: () => number): { bytes: Uint8Array; what: string } {
  const at = Math.floor(r() * Math.max(1, b.length));
  const pick = <T>(xs: T[]) => xs[Math.floor(r() * xs.length)]!;
  const kind = Math.floor(r() * 9);
  const cat = (...p: Uint8Array[]) => {
    const out = new Uint8Array(p.reduce((n, x) => n + x.length, 0));
    let o = 0;
    for (const x of p) {
      out.set(x, o);
      o += x.length;
    }
    return out;
  };
  switch (kind) {
    case 0: {
      const c = b.slice();
      c[at] = c[at]! ^ (1 << Math.floor(r() * 8));
      return { bytes: c, what: `bit flip at ${at}` };
    }
    case 1:
      return { bytes: b.slice(0, at), what: `truncated to ${at}` };
    case 2:
      return { bytes: cat(b.slice(0, at), b.slice(at + 1)), what: `byte ${at} removed` };
    case 3:
      return {
        bytes: cat(b.slice(0, at), enc.encode(pick(['\n', '\n\n', '\t', '\r', '\0', ' ', '+', '=', '\u2014 ', '\uFEFF', '\u00a0']))),
        what: `insert at ${at}`,
      }; // then the rest dropped: a torn write
    case 4:
      return {
        bytes: cat(b.slice(0, at), enc.encode(pick(['\n', '\u2014 x AAAAAAA=\n', 'index 0\n', '\n\n', 'A'.repeat(5000)])), b.slice(at)),
        what: `insert at ${at}`,
      };
    case 5: {
      const lines = dec.decode(b).split('\n');
      const i = Math.floor(r() * lines.length);
      lines.splice(i, 0, lines[i] ?? '');
      return { bytes: enc.encode(lines.join('\n')), what: `line ${i} duplicated` };
    }
    case 6: {
      const lines = dec.decode(b).split('\n');
      const i = Math.floor(r() * Math.max(1, lines.length - 1));
      [lines[i], lines[i + 1]] = [lines[i + 1] ?? '', lines[i] ?? ''];
      return { bytes: enc.encode(lines.join('\n')), what: `lines ${i} and ${i + 1} swapped` };
    }
    case 7:
      return { bytes: cat(b, b.slice(0, Math.floor(r() * 200))), what: 'bytes appended' };
    default: {
      const c = b.slice();
      c[at] = Math.floor(r() * 256);
      return { bytes: c, what: `byte ${at} replaced` };
    }
  }
}

/**
 * What a fuzzTlog run saw: inputs, accepted inputs, refusals by code, the slowest call and any findings.
 *
 * @example
 * ```ts
 * const stats: TlogFuzzStats = await fuzzTlog({ seed: 1, inputs: 200, now: () => performance.now() });
 * if (stats.findings.length) throw new Error(stats.findings[0]!.detail);
 * ```
 */
export interface TlogFuzzStats {
  inputs: number;
  accepted: number;
  refusals: Record<string, number>;
  maxMs: number;
  findings: FuzzFinding[];
}

/**
 * Run the fuzzer; findings are returned, never thrown.
 *
 * @example
 * ```ts
 * const stats = await fuzzTlog({ seed: 20261123, inputs: 400, now: () => performance.now() });
 * console.log(stats.refusals); // TlogError codes only
 * ```
 */
export async function fuzzTlog(o: {
  seed: number;
  inputs?: number;
  stop?: () => boolean;
  now: () => number;
  slowMs?: number;
}): Promise<TlogFuzzStats> {
  const c = corpus(o.seed);
  const r = prng(o.seed);
  const stats: TlogFuzzStats = { inputs: 0, accepted: 0, refusals: {}, maxMs: 0, findings: [] };
  const slow = o.slowMs ?? 1000;
  const vkeys = c.signers.map((s) => s.vkey);
  const targets = ['checkpoint', 'proof', 'tile', 'vkey', 'sign-subtree', 'add-entries', 'mirror-info'] as const;
  for (let i = 0; o.inputs === undefined || i < o.inputs; i++) {
    if (o.stop?.()) break;
    const target = targets[Math.floor(r() * targets.length)]!;
    const tilePaths = [...c.tiles.keys()];
    const tileAt = tilePaths[Math.floor(r() * tilePaths.length)]!;
    const original =
      target === 'checkpoint'
        ? enc.encode(c.checkpoint)
        : target === 'proof'
          ? enc.encode(c.proof)
          : target === 'tile'
            ? c.tiles.get(tileAt)!
            : target === 'sign-subtree'
              ? enc.encode(c.signSubtree)
              : target === 'add-entries'
                ? c.addEntries
                : target === 'mirror-info'
                  ? enc.encode(c.mirrorInfo)
                  : enc.encode(vkeys[Math.floor(r() * 3)]!);
    const m = mutateBytes(original, r);
    const description = `${target}${target === 'tile' ? ` ${tileAt}` : ''}: ${m.what}`;
    const finding = (kind: FuzzFinding['kind'], detail: string) =>
      stats.findings.push({ kind, seed: o.seed, index: i, description, detail });
    const t0 = o.now();
    try {
      if (target === 'checkpoint') {
        const opened = openNote(m.bytes, c.signers);
        stats.accepted++;
        // Opening under every log key means the signed text and every log line are the original's.
        if (opened.verified.length === 3 && opened.note.text !== c.text)
          finding('forgery', 'a changed checkpoint text opened under every log key');
      } else if (target === 'proof') {
        const v = verifyTlogProof(dec.decode(m.bytes), leafHash(c.leaves[c.index]!), { origin: ORIGIN, logKeys: c.signers });
        stats.accepted++;
        if (v.index !== c.index || v.checkpoint.size !== c.size || !bytesEqual(v.checkpoint.root, c.root))
          finding('forgery', 'a changed proof verified');
      } else if (target === 'tile') {
        const reader = new TileReader(
          async (p) => (p === tileAt ? m.bytes : (c.tiles.get(p) ?? Promise.reject(new TlogError('malformed_tile', 'absent')))),
          {
            size: c.size,
            root: c.root,
          },
        );
        await reader.checkRoot();
        const entries = await reader.entries(0, c.size);
        stats.accepted++;
        if (entries.some((e, k) => !bytesEqual(e, c.leaves[k]!))) finding('forgery', 'changed tiles gave other entries');
      } else if (target === 'sign-subtree') {
        const a = decideSignSubtree(m.bytes, (origin) => origin === ORIGIN, [c.subtreeWitness]);
        if (a.status !== 200) throw new TlogError('malformed_request', `sign-subtree ${a.status}`);
        stats.accepted++;
        // Whatever was changed, a subtree it signs is one of this tree, with the hash it has there.
        const q = parseSignSubtree(m.bytes);
        if (!isSubtree(q.start, q.end) || q.end > c.size || !bytesEqual(q.hash, rangeHash(c.tree, q.start, q.end)))
          finding('forgery', `the witness signed [${q.start}, ${q.end}) with a hash that tree does not have there`);
      } else if (target === 'add-entries') {
        const reader = new AddEntriesReader();
        reader.push(m.bytes);
        const h = reader.header();
        for (let p = reader.next(); p && h; p = reader.next()) {
          // The checkpoint a mirror would hold is the log's at the upload's end, when that is a size it has.
          if (h.end !== c.size || p.end > c.size) continue;
          const held = c.leaves.slice(p.subtreeStart, p.start).map((l) => leafHash(l));
          if (!verifyPackage(p, held, { size: c.size, root: c.root })) continue;
          stats.accepted++;
          if (p.entries.some((e, k) => !bytesEqual(e, c.leaves[p.start + k]!)))
            finding('forgery', `a package at ${p.start} with other entries authenticated`);
        }
      } else if (target === 'mirror-info') {
        const text = dec.decode(m.bytes);
        const info = parseMirrorInfo(text);
        stats.accepted++;
        // One spelling per value: whatever parses is the canonical text of what it parsed to.
        if (formatMirrorInfo(info) !== text) finding('forgery', 'a mirror-info body that is not canonical parsed');
      } else {
        const v = parseVkey(dec.decode(m.bytes));
        stats.accepted++;
        // A vkey that still parses names a key: it must never verify the original checkpoint unless it is the original key.
        try {
          openNote(c.checkpoint, [v]);
          if (!vkeys.includes(v.vkey)) finding('forgery', 'a changed vkey verified the checkpoint');
        } catch (e) {
          if (!(e instanceof TlogError)) throw e;
        }
      }
    } catch (e) {
      if (e instanceof TlogError) stats.refusals[e.code] = (stats.refusals[e.code] ?? 0) + 1;
      else finding('throw', e instanceof Error ? `${e.name}: ${e.message}` : String(e));
    }
    const ms = o.now() - t0;
    stats.maxMs = Math.max(stats.maxMs, ms);
    if (ms > slow) finding('slow', `${Math.round(ms)} ms`);
    stats.inputs++;
  }
  return stats;
}
