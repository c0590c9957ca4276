// tlog-witness sign-subtree and subtree/v1 cosignatures with timestamp 0 (tlog-cosignature 1.1):
// what the witness signs, in which cases it refuses with which status, and what a reader accepts.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { concatBytes, toBase64, utf8 } from '../../src/encoding/bytes.js';
import { sha256 } from '../../src/encoding/hash.js';
import { MemoryTree, isSubtree, rangeHash, subtreeProof, treeRoot } from '../../src/merkle-entry.js';
import {
  checkSubtreeSignature,
  cosignedMessage,
  decideSignSubtree,
  formatCheckpoint,
  formatSignSubtree,
  logKeygen,
  noteSigner,
  openSubtreeSignatures,
  parseNote,
  parseSignSubtree,
  signNote,
  type NoteSigner,
} from '../../src/tlog/index.js';

const ORIGIN = 'example.test/subtree-log';
const seed = (s: string) => sha256(utf8(s));
const logKey = noteSigner(ORIGIN, logKeygen('ed25519', seed('log')));
const w44 = noteSigner('witness.test/w1', logKeygen('subtree/v1', seed('w44')));
const wEd = noteSigner('witness.test/w1', logKeygen('cosignature/v1', seed('wed')));
const witness: NoteSigner[] = [w44, wEd];
const known = (o: string) => o === ORIGIN;

function tree(n: number): MemoryTree {
  const t = new MemoryTree();
  for (let i = 0; i < n; i++) t.appendData(utf8(`entry ${i}`));
  return t;
}
/** A checkpoint of the first n leaves, signed by the log and cosigned by `by`. */
function cosigned(t: MemoryTree, n: number, by: NoteSigner[] = witness): string {
  const text = formatCheckpoint({ origin: ORIGIN, size: n, root: treeRoot(t, n), extensions: [] });
  return signNote(text, [logKey, ...by], 1_767_225_600);
}
const request = (t: MemoryTree, start: number, end: number, n: number, checkpoint = cosigned(t, n)) =>
  formatSignSubtree({ start, end, hash: rangeHash(t, start, end), proof: subtreeProof(t, start, end, n), checkpoint });

/** The cosigned_message, built from tlog-cosignature's struct here rather than by the code under test. */
function specMessage(cosigner: string, origin: string, start: number, end: number, hash: Uint8Array): Uint8Array {
  const u64 = (n: number) => {
    const b = new Uint8Array(8);
    new DataView(b.buffer).setBigUint64(0, BigInt(n));
    return b;
  };
  const name = utf8(cosigner);
  const o = utf8(origin);
  return concatBytes(
    utf8('subtree/v1\n\0'),
    new Uint8Array([name.length]),
    name,
    u64(0),
    new Uint8Array([o.length]),
    o,
    u64(start),
    u64(end),
    hash,
  );
}

describe('sign-subtree: the spec example shape', () => {
  it('subtree 8 13 of a 14-leaf checkpoint: 200, one ML-DSA-44 line at timestamp 0 over exactly the cosigned_message', () => {
    const t = tree(14);
    const body = request(t, 8, 13, 14);
    expect(body.split('\n').slice(0, 6).length).toBe(6); // range, hash, 4 proof lines (the spec's example has 4)
    const a = decideSignSubtree(body, known, witness);
    expect(a.status, a.body).toBe(200);
    const s = { origin: ORIGIN, start: 8, end: 13, hash: rangeHash(t, 8, 13) };
    const lines = openSubtreeSignatures(a.body, s, [w44]);
    expect(lines).toHaveLength(1);
    expect(a.body.split('\n').filter(Boolean)).toHaveLength(1); // the Ed25519 key cannot sign a subtree
    const sig = lines[0]!.signature;
    expect([...sig.subarray(0, 8)]).toEqual([0, 0, 0, 0, 0, 0, 0, 0]);
    expect(cosignedMessage(w44.name, 0, s)).toEqual(specMessage(w44.name, ORIGIN, 8, 13, s.hash));
    expect(checkSubtreeSignature('subtree/v1', w44.name, w44.publicKey, s, sig)).toEqual({ ok: true, timestamp: 0 });
    // Another range, hash, origin or cosigner name: the same bytes do not verify.
    for (const other of [
      { ...s, end: 12 },
      { ...s, start: 0 },
      { ...s, hash: rangeHash(t, 8, 12) },
      { ...s, origin: `${ORIGIN}2` },
    ])
      expect(checkSubtreeSignature('subtree/v1', w44.name, w44.publicKey, other, sig).ok).toBe(false);
    expect(checkSubtreeSignature('subtree/v1', 'witness.test/w2', w44.publicKey, s, sig).ok).toBe(false);
  });

  it('a request round-trips through its text form', () => {
    const t = tree(14);
    const r = parseSignSubtree(request(t, 8, 13, 14));
    expect(r).toMatchObject({ start: 8, end: 13 });
    expect(formatSignSubtree(r)).toBe(request(t, 8, 13, 14));
  });
});

describe('sign-subtree refusals, with the statuses tlog-witness gives them', () => {
  const t = tree(14);
  const cp = cosigned(t, 14);
  const h = toBase64(rangeHash(t, 8, 13));
  const proofLines = subtreeProof(t, 8, 13, 14).map(toBase64).join('\n');
  const cases: [string, string, number][] = [
    ['empty', '', 400],
    ['no empty line', `subtree 8 13\n${h}\n`, 400],
    ['leading zero', `subtree 08 13\n${h}\n${proofLines}\n\n${cp}`, 400],
    ['negative', `subtree -8 13\n${h}\n${proofLines}\n\n${cp}`, 400],
    ['extra space', `subtree  8 13\n${h}\n${proofLines}\n\n${cp}`, 400],
    ['not a subtree', `subtree 9 13\n${h}\n${proofLines}\n\n${cp}`, 400],
    ['empty range', `subtree 8 8\n${h}\n\n${cp}`, 400],
    ['past the checkpoint', request(tree(16), 8, 16, 16).replace(/\n\n[\s\S]*$/, `\n\n${cp}`), 400],
    ['overflowing size', `subtree 0 18446744073709551616\n${h}\n\n${cp}`, 400],
    ['short hash', `subtree 8 13\n${toBase64(new Uint8Array(31))}\n${proofLines}\n\n${cp}`, 400],
    ['64 proof lines', `subtree 8 13\n${h}\n${`${h}\n`.repeat(64)}\n${cp}`, 400],
    ['not a checkpoint', `subtree 8 13\n${h}\n${proofLines}\n\nhello\n\n— x AAAAAAAA\n`, 400],
    ['unknown origin', request(t, 8, 13, 14).replace(ORIGIN, 'other.test/log'), 404],
    ['no witness cosignature', request(t, 8, 13, 14, cosigned(t, 14, [])), 403],
    [
      'another witness cosigned it',
      request(t, 8, 13, 14, cosigned(t, 14, [noteSigner('witness.test/w1', logKeygen('subtree/v1', seed('x')))])),
      403,
    ],
    ['a wrong proof', request(t, 8, 13, 14).replace(proofLines.split('\n')[0]!, h), 422],
    ['a wrong hash', request(t, 8, 13, 14).replace(h, toBase64(rangeHash(t, 8, 12))), 422],
    ['a proof for another tree', request(t, 8, 13, 13).replace(/\n\n[\s\S]*$/, `\n\n${cp}`), 422],
  ];
  for (const [what, body, status] of cases)
    it(`${what}: ${status}`, () => {
      const a = decideSignSubtree(body, known, witness);
      expect(a.status, a.body).toBe(status);
      expect(a.body).not.toMatch(/^—/);
    });

  it('non-UTF-8 and over 1 MiB: 400', () => {
    expect(decideSignSubtree(new Uint8Array([0x73, 0x75, 0xff, 0x0a, 0x0a]), known, witness).status).toBe(400);
    expect(decideSignSubtree(new Uint8Array(2 ** 20 + 1).fill(0x41), known, witness).status).toBe(400);
  });

  it("a forged line under the witness's own key is a 403, not a signature", () => {
    const good = cosigned(t, 14);
    const n = parseNote(good);
    const forged = good.replace(/(— witness\.test\/w1 .{20})(.)/, (_, a, c) => a + (c === 'A' ? 'B' : 'A'));
    expect(forged).not.toBe(good);
    expect(n.signatures.length).toBe(3);
    expect(decideSignSubtree(request(t, 8, 13, 14, forged), known, witness).status).toBe(403);
  });
});

describe('sign-subtree (properties)', () => {
  const arb = fc
    .integer({ min: 1, max: 200 })
    .chain((n) => fc.tuple(fc.constant(n), fc.integer({ min: 0, max: n - 1 }), fc.integer({ min: 1, max: n })))
    .map(([n, a, b]) => {
      const end = Math.max(a + 1, b);
      let start = a;
      while (!isSubtree(start, end)) start--;
      return { n, start, end };
    });

  it('signs every subtree of a cosigned checkpoint, and only the hash that tree has there', () => {
    fc.assert(
      fc.property(arb, fc.integer({ min: 0, max: 255 }), ({ n, start, end }, bit) => {
        const t = tree(n);
        const a = decideSignSubtree(request(t, start, end, n), known, [w44]);
        expect(a.status, a.body).toBe(200);
        const hash = rangeHash(t, start, end);
        expect(openSubtreeSignatures(a.body, { origin: ORIGIN, start, end, hash }, [w44])).toHaveLength(1);
        const wrong = hash.slice();
        wrong[bit % 32]! ^= 1 << (bit % 8);
        const body = formatSignSubtree({
          start,
          end,
          hash: wrong,
          proof: subtreeProof(t, start, end, n),
          checkpoint: cosigned(t, n, [w44]),
        });
        expect(decideSignSubtree(body, known, [w44]).status).toBe(422);
      }),
      { numRuns: 40 },
    );
  });

  it('a subtree that does not start at 0 is never accepted with a timestamp', () => {
    const t = tree(14);
    const s = { origin: ORIGIN, start: 8, end: 13, hash: rangeHash(t, 8, 13) };
    // The same key signing the message with timestamp 5: readers refuse it for a subtree off 0.
    const line = w44.sign(formatCheckpoint({ origin: ORIGIN, size: 13, root: treeRoot(t, 13), extensions: [] }), 5);
    expect(checkSubtreeSignature('subtree/v1', w44.name, w44.publicKey, s, line.signature).ok).toBe(false);
    // A checkpoint's cosignature is a subtree from 0 with its timestamp.
    const root = { origin: ORIGIN, start: 0, end: 13, hash: treeRoot(t, 13) };
    expect(checkSubtreeSignature('subtree/v1', w44.name, w44.publicKey, root, line.signature)).toEqual({ ok: true, timestamp: 5 });
  });
});
