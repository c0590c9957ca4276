// Trust policies and the witness's add-checkpoint decision: the tlog-policy example, every status
// tlog-witness names, cosignatures that verify, and a witness that never rolls back (property).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { sha256 } from '../../src/encoding/hash.js';
import { utf8 } from '../../src/encoding/bytes.js';
import { MemoryTree } from '../../src/merkle/memory.js';
import { consistencyProof, treeRoot } from '../../src/merkle/prove.js';
import {
  decideAddCheckpoint,
  formatAddCheckpoint,
  formatCheckpoint,
  logKeygen,
  noteSigner,
  openNote,
  parsePolicy,
  quorumMet,
  signNote,
  type WitnessState,
} from '../../src/tlog/index.js';

const seed = (s: string) => sha256(utf8(`witness-test/${s}`));
const ORIGIN = 'example.test/log';
const log = noteSigner(ORIGIN, logKeygen('ed25519', seed('log')));
const log44 = noteSigner(ORIGIN, logKeygen('subtree/v1', seed('log44')));
const w44 = noteSigner('witness.test/w1', logKeygen('subtree/v1', seed('w1')));
const wEd = noteSigner('witness.test/w1', logKeygen('cosignature/v1', seed('w1ed')));
const tree = new MemoryTree();
for (let i = 0; i < 600; i++) tree.appendData(sha256(utf8(`leaf ${i}`)));
const cp = (size: number, signers = [log, log44], origin = ORIGIN) =>
  signNote(formatCheckpoint({ origin, size, root: treeRoot(tree, size), extensions: [] }), signers, 1_700_000_000);
const body = (old: number, size: number, opts: { proof?: Uint8Array[]; checkpoint?: string } = {}) =>
  formatAddCheckpoint({
    oldSize: old,
    proof: opts.proof ?? (old > 0 && old < size ? consistencyProof(tree, old, size) : []),
    checkpoint: opts.checkpoint ?? cp(size),
  });

function witness() {
  const states = new Map<string, WitnessState>();
  const add = (b: string) => {
    const a = decideAddCheckpoint(
      b,
      (o) => (o === ORIGIN ? [log, log44] : undefined),
      (o) => states.get(o) ?? null,
      [w44, wEd],
      1_700_000_100,
    );
    if (a.status === 200) states.set(a.origin, a.state);
    return a;
  };
  return { states, add };
}

describe('tlog-policy', () => {
  const v = (s: string, t: 'cosignature/v1' | 'subtree/v1' = 'cosignature/v1') => noteSigner(`w.test/${s}`, logKeygen(t, seed(s))).vkey;
  const example = `# the example of c2sp.org/tlog-policy, with keys
log ${log.vkey}
witness X1 ${v('x1')}
witness X2 ${v('x2', 'subtree/v1')}
witness X3 ${v('x3')}
group X-witnesses 2 X1 X2 X3
  witness Y1 ${v('y1')}\t
witness Y2 ${v('y2')}
witness Y3 ${v('y3')} https://y3.example/
group Y-witnesses any Y1 Y2 Y3
group X-and-Y all X-witnesses Y-witnesses
quorum X-and-Y
`;

  it('parses the specification example and evaluates its quorum: two of X and one of Y', () => {
    const p = parsePolicy(example);
    expect(p.logs).toHaveLength(1);
    expect(p.witnesses.size).toBe(6);
    expect(p.witnesses.get('Y3')!.url).toBe('https://y3.example/');
    const k = (n: string) => p.witnesses.get(n)!.key.vkey;
    expect(quorumMet(p, new Set([k('X1'), k('X2'), k('Y3')]))).toBe(true);
    expect(quorumMet(p, new Set([k('X1'), k('Y1'), k('Y2'), k('Y3')]))).toBe(false);
    expect(quorumMet(p, new Set([k('X1'), k('X3')]))).toBe(false);
    expect(quorumMet(p, new Set([log.vkey]))).toBe(false);
    expect(quorumMet(parsePolicy(`log ${log.vkey}\nquorum none\n`), new Set())).toBe(true);
  });

  it.each([
    ['no quorum line', `log ${log.vkey}\n`],
    ['two quorum lines', `quorum none\nquorum none\n`],
    ['a quorum naming what comes later', `quorum W\nwitness W ${v('a')}\n`],
    ['a group naming an undefined member', `group G any W\nquorum G\n`],
    ['a member listed twice', `witness W ${v('a')}\ngroup G any W W\nquorum G\n`],
    ['a threshold above the members', `witness W ${v('a')}\ngroup G 2 W\nquorum G\n`],
    ['a threshold of zero', `witness W ${v('a')}\ngroup G 0 W\nquorum G\n`],
    ['a name used twice', `witness W ${v('a')}\nwitness W ${v('b')}\nquorum W\n`],
    ['one key twice', `witness A ${v('a')}\nwitness B ${v('a')}\nquorum A\n`],
    ['a log key of a witness type', `log ${v('a')}\nquorum none\n`],
    ['a witness key of the Ed25519 note type', `witness W ${log.vkey}\nquorum W\n`],
    ['a control character', `quorum none\r\n`],
    ['an unknown line', `quorum none\nwitnesses 3\n`],
    ['none as a group member', `witness W ${v('a')}\ngroup G any none\nquorum G\n`],
  ])('refuses %s', (_what, text) => {
    expect(() => parsePolicy(text)).toThrowError(expect.objectContaining({ code: 'malformed_policy' }));
  });
});

describe('add-checkpoint (tlog-witness)', () => {
  it('cosigns a first checkpoint from size 0, with cosignatures that verify under the witness keys', () => {
    const w = witness();
    const a = w.add(body(0, 300));
    expect(a.status).toBe(200);
    if (a.status !== 200) return;
    const lines = a.body.trimEnd().split('\n');
    expect(lines).toHaveLength(2);
    expect(lines.every((l) => l.startsWith('\u2014 witness.test/w1 '))).toBe(true);
    const opened = openNote(`${formatCheckpoint({ origin: ORIGIN, size: 300, root: treeRoot(tree, 300), extensions: [] })}\n${a.body}`, [
      w44,
      wEd,
    ]);
    expect(opened.verified.map((x) => [x.type, x.timestamp])).toEqual([
      ['subtree/v1', 1_700_000_100],
      ['cosignature/v1', 1_700_000_100],
    ]);
    // The state it keeps for monitors holds the log's lines and its own.
    expect(openNote(a.state.checkpoint, [log, log44, w44, wEd]).verified).toHaveLength(4);
  });

  it('answers every status the protocol names', () => {
    const w = witness();
    expect(w.add(body(0, 300)).status).toBe(200);
    // 409: the old size is not the last cosigned, with that size as text/x.tlog.size.
    const c = w.add(body(0, 400));
    expect(c).toMatchObject({ status: 409, body: '300\n', contentType: 'text/x.tlog.size' });
    expect(w.add(body(300, 400)).status).toBe(200);
    expect(w.add(body(400, 400)).status).toBe(200); // the same tree again: cosigned again
    // 400: malformed, or old size above the checkpoint's.
    expect(w.add('old 1\n').status).toBe(400);
    expect(w.add(`old 01\n\n${cp(500)}`).status).toBe(400);
    expect(w.add(body(400, 500).replace('old 400', 'old 501')).status).toBe(400);
    expect(w.add(`old 400\n${'AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=\n'.repeat(64)}\n${cp(500)}`).status).toBe(400);
    // 404: an origin it does not witness.
    expect(w.add(body(0, 10, { checkpoint: cp(10, [log], 'other.test/log') })).status).toBe(404);
    // 403: no line by a trusted key, or a trusted key's line that fails.
    const stranger = noteSigner(ORIGIN, logKeygen('ed25519', seed('stranger')));
    expect(w.add(body(400, 500, { checkpoint: cp(500, [stranger]) })).status).toBe(403);
    // The key ID (first 8 base64 characters) kept, a character of the signature itself changed.
    const forged = cp(500).replace(/\n(\u2014 \S+ .{30})(.)/, (_m, a, b) => `\n${a}${b === 'A' ? 'B' : 'A'}`);
    expect(w.add(body(400, 500, { checkpoint: forged })).status).toBe(403);
    // 422: a proof that does not verify; another root at the cosigned size; a proof from zero.
    expect(w.add(body(400, 500, { proof: consistencyProof(tree, 300, 500) })).status).toBe(422);
    const other = new MemoryTree();
    for (let i = 0; i < 400; i++) other.appendData(sha256(utf8(`fork ${i}`)));
    const fork = signNote(formatCheckpoint({ origin: ORIGIN, size: 400, root: treeRoot(other, 400), extensions: [] }), [log], 1);
    expect(w.add(body(400, 400, { checkpoint: fork })).status).toBe(422);
    const w2 = witness();
    expect(w2.add(body(0, 300, { proof: [sha256(utf8('x'))] })).status).toBe(422);
    const zero = signNote(formatCheckpoint({ origin: ORIGIN, size: 0, root: sha256(utf8('not empty')), extensions: [] }), [log], 1);
    expect(w2.add(body(0, 0, { checkpoint: zero })).status).toBe(422);
    // Nothing refused changed the state.
    expect(w.states.get(ORIGIN)!.size).toBe(400);
  });

  it('never rolls back: any sequence of submissions ends at the largest consistent size, each 200 no smaller than the last (property)', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.integer({ min: 1, max: 600 }), fc.boolean()), { minLength: 1, maxLength: 100 }), (reqs) => {
        const w = witness();
        let last = 0;
        for (const [size, fresh] of reqs) {
          // A client that knows the witness's size (or guesses 0) submits its checkpoint.
          const old = fresh ? 0 : Math.min(size, w.states.get(ORIGIN)?.size ?? 0);
          const a = w.add(body(old, size));
          if (a.status === 200) {
            expect(a.state.size).toBeGreaterThanOrEqual(last);
            last = a.state.size;
          }
        }
        const largest = w.states.get(ORIGIN)?.size ?? 0;
        expect(largest).toBe(last);
      }),
      { numRuns: 60, seed: 11 },
    );
  });
});
