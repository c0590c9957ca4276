// tlog-mirror add-entries bodies: the canonical package sequence, the byte layout the spec gives,
// an incremental reader that yields whole packages only, and a package's authentication by its
// subtree consistency proof alone.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { concatBytes, toHex, utf8 } from '../../src/encoding/bytes.js';
import { MemoryTree, leafHash, nodeHash, treeRoot } from '../../src/merkle-entry.js';
import { AddEntriesReader, PACKAGE_ENTRIES, TlogError, formatAddEntries, packageRanges, verifyPackage } from '../../src/tlog/index.js';

const ORIGIN = 'example.test/mirrored';
const entriesOf = (n: number) => Array.from({ length: n }, (_, i) => utf8(`entry ${i} ${'x'.repeat(i % 7)}`));
function log(n: number) {
  const entries = entriesOf(n);
  const tree = new MemoryTree();
  for (const e of entries) tree.appendData(e);
  return { entries, tree, root: treeRoot(tree, n) };
}
const held = (tree: MemoryTree, from: number, to: number) => Array.from({ length: to - from }, (_, k) => tree.subtree(0, from + k));

describe('the canonical sequence of packages', () => {
  it('covers [start, end) in order, one 256-aligned block a package (property)', () => {
    fc.assert(
      fc.property(fc.nat(5000), fc.nat(3000), (start, len) => {
        const end = start + len;
        const ps = packageRanges(start, end);
        if (len === 0) {
          expect(ps).toEqual([]);
          return;
        }
        expect(ps.length).toBe((Math.ceil(end / 256) * 256 - Math.floor(start / 256) * 256) / 256);
        expect(ps[0]!.start).toBe(start);
        expect(ps.at(-1)!.end).toBe(end);
        for (const [i, p] of ps.entries()) {
          expect(p.subtreeStart % PACKAGE_ENTRIES).toBe(0);
          expect(p.subtreeStart <= p.start && p.start < p.end && p.end <= p.subtreeStart + 256).toBe(true);
          if (i > 0) expect(p.start).toBe(ps[i - 1]!.end);
        }
      }),
    );
  });
});

describe('the body, byte for byte', () => {
  it("a two-entry upload is the spec's fields, concatenated", () => {
    const { entries, tree } = log(2);
    const body = formatAddEntries({ origin: ORIGIN, start: 0, end: 2, ticket: new Uint8Array([7, 8]) }, (i) => entries[i]!, tree);
    const u64 = (n: number) => new Uint8Array([0, 0, 0, 0, 0, 0, 0, n]);
    const lp = (e: Uint8Array) => concatBytes(new Uint8Array([0, e.length]), e);
    const expected = concatBytes(
      new Uint8Array([0, ORIGIN.length]),
      utf8(ORIGIN),
      u64(0),
      u64(2),
      new Uint8Array([0, 2, 7, 8]),
      lp(entries[0]!),
      lp(entries[1]!),
      new Uint8Array([0]), // the subtree [0, 2) is the checkpoint's whole tree: no proof hashes
    );
    expect(toHex(body)).toBe(toHex(expected));
  });
});

describe('reading and authenticating packages', () => {
  it('any chunking yields the same packages, each authentic, and the whole upload (property)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 700 }),
        fc.nat(),
        fc.array(fc.integer({ min: 1, max: 900 }), { minLength: 1, maxLength: 8 }),
        (n, s, sizes) => {
          const start = s % n;
          const { entries, tree, root } = log(n);
          const body = formatAddEntries({ origin: ORIGIN, start, end: n, ticket: new Uint8Array(0) }, (i) => entries[i]!, tree);
          const r = new AddEntriesReader();
          const got = [];
          for (let at = 0, k = 0; at < body.length; k++) {
            const len = sizes[k % sizes.length]!;
            r.push(body.subarray(at, at + len));
            at += len;
            for (let p = r.next(); p; p = r.next()) got.push(p);
          }
          expect(r.header()).toMatchObject({ origin: ORIGIN, start, end: n });
          expect(got.map((p) => [p.start, p.end])).toEqual(packageRanges(start, n).map((p) => [p.start, p.end]));
          expect(r.packages.complete).toBe(true);
          expect(r.pending).toBe(0);
          for (const p of got) {
            expect(p.entries.map(toHex)).toEqual(entries.slice(p.start, p.end).map(toHex));
            expect(verifyPackage(p, held(tree, p.subtreeStart, p.start), { size: n, root })).toBe(true);
          }
        },
      ),
      { numRuns: 40 },
    );
  });

  it('a prefix upload stops on a package boundary; a cut one leaves its partial bytes pending', () => {
    const { entries, tree } = log(1000);
    const h = { origin: ORIGIN, start: 100, end: 1000, ticket: new Uint8Array(0) };
    const two = formatAddEntries(h, (i) => entries[i]!, tree, 2);
    const r = new AddEntriesReader();
    r.push(two);
    expect([r.next(), r.next(), r.next()].map((p) => p && [p.start, p.end])).toEqual([[100, 256], [256, 512], null]);
    expect(r.packages).toEqual({ read: 2, of: 4, complete: false });
    const cut = new AddEntriesReader();
    cut.push(two.subarray(0, two.length - 5));
    expect(cut.next()).not.toBeNull();
    expect(cut.next()).toBeNull();
    expect(cut.pending).toBeGreaterThan(0);
  });

  it('a lying package does not authenticate: a changed entry, a reordering, held hashes of other leaves, another checkpoint', () => {
    const { entries, tree, root } = log(600);
    const r = new AddEntriesReader();
    r.push(formatAddEntries({ origin: ORIGIN, start: 300, end: 600, ticket: new Uint8Array(0) }, (i) => entries[i]!, tree));
    const p = r.next()!;
    const h = held(tree, 256, 300);
    expect(verifyPackage(p, h, { size: 600, root })).toBe(true);
    const changed = { ...p, entries: p.entries.map((e, i) => (i === 3 ? utf8('forged') : e)) };
    const swapped = { ...p, entries: [p.entries[1]!, p.entries[0]!, ...p.entries.slice(2)] };
    expect(verifyPackage(changed, h, { size: 600, root })).toBe(false);
    expect(verifyPackage(swapped, h, { size: 600, root })).toBe(false);
    expect(
      verifyPackage(
        p,
        h.map((x, i) => (i === 0 ? leafHash(utf8('other')) : x)),
        { size: 600, root },
      ),
    ).toBe(false);
    expect(verifyPackage(p, h.slice(1), { size: 600, root })).toBe(false);
    expect(verifyPackage(p, h, { size: 600, root: treeRoot(tree, 599) })).toBe(false);
    // A liar's own consistent log: its packages verify against its own root, never against the real one.
    const liar = log(600);
    liar.entries[310] = utf8('rewritten');
    const t2 = new MemoryTree();
    for (const e of liar.entries) t2.appendData(e);
    const r2 = new AddEntriesReader();
    r2.push(formatAddEntries({ origin: ORIGIN, start: 300, end: 600, ticket: new Uint8Array(0) }, (i) => liar.entries[i]!, t2));
    const lie = r2.next()!;
    expect(verifyPackage(lie, h, { size: 600, root: treeRoot(t2, 600) })).toBe(true);
    expect(verifyPackage(lie, h, { size: 600, root })).toBe(false);
  });

  it('hostile headers and packages: TlogError for what can never be valid, null while bytes are missing', () => {
    const u64 = (n: bigint) => {
      const b = new Uint8Array(8);
      new DataView(b.buffer).setBigUint64(0, n);
      return b;
    };
    const head = (origin: Uint8Array, s: bigint, e: bigint) =>
      concatBytes(new Uint8Array([0, origin.length]), origin, u64(s), u64(e), new Uint8Array([0, 0]));
    const fail = (b: Uint8Array) => {
      const r = new AddEntriesReader();
      r.push(b);
      return () => r.next();
    };
    expect(fail(head(utf8('o'), 5n, 4n))).toThrow(TlogError);
    expect(fail(head(utf8('o'), 0n, 2n ** 60n))).toThrow(TlogError);
    expect(fail(head(new Uint8Array([0xff, 0xfe]), 0n, 1n))).toThrow(TlogError);
    // One entry, then a proof of 64 hashes.
    expect(fail(concatBytes(head(utf8('o'), 0n, 1n), new Uint8Array([0, 1, 0x41, 64])))).toThrow(/at most 63/);
    // A length prefix of 65535 with three bytes behind it: nothing yet, nothing thrown.
    const waiting = new AddEntriesReader();
    waiting.push(concatBytes(head(utf8('o'), 0n, 1n), new Uint8Array([0xff, 0xff, 1, 2, 3])));
    expect(waiting.next()).toBeNull();
    expect(waiting.header()).toMatchObject({ start: 0, end: 1 });
    // An empty upload is complete at once.
    const empty = new AddEntriesReader();
    empty.push(head(utf8('o'), 9n, 9n));
    expect(empty.next()).toBeNull();
    expect(empty.packages).toEqual({ read: 0, of: 0, complete: true });
  });
});

describe('hostile headers and trickled packages', () => {
  it('a header naming 2^45 packages costs nothing until packages are read', () => {
    const r = new AddEntriesReader();
    const end = Number.MAX_SAFE_INTEGER;
    const head = concatBytes(
      new Uint8Array([0, 1]),
      utf8('o'),
      new Uint8Array(8),
      new Uint8Array([0, 0x1f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff]),
      new Uint8Array([0, 0]),
    );
    r.push(head);
    expect(r.header()).toEqual({ origin: 'o', start: 0, end, ticket: new Uint8Array(0) });
    expect(r.packages).toEqual({ read: 0, of: Math.ceil(end / 256), complete: false });
    expect(r.next()).toBeNull();
  });

  it('a body pushed one byte at a time yields the same packages as one push (property)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 700 }), fc.nat(699), (n, s) => {
        const start = s % n;
        const { entries, tree } = log(n);
        const body = formatAddEntries({ origin: ORIGIN, start, end: n, ticket: new Uint8Array(0) }, (i) => entries[i]!, tree);
        const whole = new AddEntriesReader();
        whole.push(body);
        const a: unknown[] = [];
        for (let p = whole.next(); p; p = whole.next()) a.push(p);
        const trickled = new AddEntriesReader();
        const b: unknown[] = [];
        for (let i = 0; i < body.length; i++) {
          trickled.push(body.subarray(i, i + 1));
          for (let p = trickled.next(); p; p = trickled.next()) b.push(p);
        }
        expect(b).toEqual(a);
        expect(trickled.packages.complete).toBe(true);
        expect(trickled.pending).toBe(0);
      }),
      { numRuns: 15 },
    );
  });
});

describe('verifyPackage with a hasher of its own', () => {
  // The same RFC 6962 hashes, counted: the verdict must be the one the core's own hashes give.
  const counted = { leaves: 0, nodes: 0 };
  const hasher = {
    leaf: (d: Uint8Array) => (counted.leaves++, leafHash(d)),
    node: (l: Uint8Array, r: Uint8Array) => (counted.nodes++, nodeHash(l, r)),
  };
  it("gives the verdict the core's hashes give, hashing every entry through it (property)", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 600 }), fc.nat(), fc.boolean(), (n, s, tamper) => {
        const { entries, tree, root } = log(n);
        const start = s % n;
        const r = new AddEntriesReader();
        r.push(formatAddEntries({ origin: ORIGIN, start, end: n, ticket: new Uint8Array(0) }, (i) => entries[i]!, tree));
        for (let p = r.next(); p; p = r.next()) {
          if (tamper) p.entries[0] = utf8('other');
          const h = held(tree, p.subtreeStart, p.start);
          const before = counted.leaves;
          expect(verifyPackage(p, h, { size: n, root }, hasher)).toBe(verifyPackage(p, h, { size: n, root }));
          expect(verifyPackage(p, h, { size: n, root }, hasher)).toBe(!tamper);
          expect(counted.leaves - before).toBe(2 * p.entries.length);
        }
      }),
      { numRuns: 20 },
    );
  });
});
