// The round-five fuzzer: what an attacker can change without a key. Three families.
// - unsigned: the parts of every signed format that no signature covers (a statement's unprotected
//   header, a receipt's proof array, a bundle's key object, envelopes and layers) changed, added
//   and removed. Nothing a verdict reports as verified may move: a statement that verifies says
//   the same iss, sub, alg and payload; registration gives one leaf per statement and refuses
//   unsigned members; a receipt that verifies has a root the log signed, and presents its position
//   as signed only against a checkpoint of that size.
// - own-key: a key the document brings never counts as pinned (signerRecognized, keyRecognized).
// - cross-kind: one kind's signed object offered as every other kind never verifies as it.
// Zero I/O: the clock is handed in.
import { fromBase64Url, fromHex, toBase64Url, toHex, utf8 } from '../encoding/bytes.js';
import { sha256 } from '../encoding/hash.js';
import { verifyBundle } from '../dispatch.js';
import { issueProof, issueRun } from '../issue/bundles.js';
import { cborDecode, cborEncode, Tagged, type CborValue } from '../envelope/cbor.js';
import { readCose1, verifyCose1 } from '../envelope/cose.js';
import { coseKey } from '../envelope/keys.js';
import { envelopeChecker, envelopeMaker, envelopeTypes } from '../envelope/receipt.js';
import { mlDsa87Signer } from '../envelope/signers.js';
import { namesFor } from '../names.js';
import { MemoryTree } from '../merkle/memory.js';
import { inclusionProof, treeRoot } from '../merkle/prove.js';
import { logKeygen } from '../tlog/signatures.js';
import { checkRegistration, type RegistrationPolicy } from '../scitt/registration.js';
import { makeReceipt, verifyReceipt } from '../scitt/receipt.js';
import { logKeySigner } from '../scitt/sign.js';
import { signStatement, statementLeaf, verifyStatement } from '../scitt/statement.js';
import { verifyTransparentStatement, withReceipts } from '../scitt/transparent.js';
import { scittChecker } from '../scitt/checker.js';
import { testKeys } from './keys.js';
import { type FuzzFinding, prng } from './fuzz.js';

/**
 * What the unsigned-parts fuzzer did: inputs per family, and its findings.
 *
 * @example
 * ```ts
 * const s = await fuzzUnsigned({ seed: 1, inputs: 100, now: () => performance.now() });
 * ```
 */
export interface UnsignedFuzzStats {
  inputs: number;
  families: Record<'unsigned' | 'own-key' | 'cross-kind', number>;
  maxMs: number;
  findings: FuzzFinding[];
}

const SIZE = 11;
const AT = 5;

/** The valid material, the same for the same seed. */
function corpus(seed: number) {
  const K = testKeys();
  const s = (n: string) => sha256(utf8(`fuzz-unsigned/${seed}/${n}`));
  const answer = `Fuzzed answer ${seed}`;
  const h = sha256(utf8(answer));
  const reserved = { iss: 'svc', subPrefix: 'urn:svc:answer:', typ: 'application/vnd.svc.answer-statement+cose' };
  const statement = signStatement(
    { answerSha256: h, iss: 'svc', sub: `urn:svc:answer:${toHex(h)}`, iat: 1, typ: reserved.typ },
    mlDsa87Signer(K.answer),
  );
  const log44 = logKeygen('subtree/v1', s('log44'));
  const logEd = logKeygen('ed25519', s('logEd'));
  const logKeys = [coseKey('ML-DSA-44', log44.publicKey), coseKey('Ed25519', logEd.publicKey)];
  const tree = new MemoryTree();
  for (let i = 0; i < SIZE; i++) tree.appendData(i === AT ? statementLeaf(statement) : s(`filler ${i}`));
  const root = treeRoot(tree, SIZE);
  const content = { index: AT, size: SIZE, path: inclusionProof(tree, AT, SIZE), root, iss: 'fuzz.example/log' };
  const receipts = [makeReceipt(content, logKeySigner(log44)), makeReceipt(content, logKeySigner(logEd))];
  const transparent = withReceipts(statement, receipts);
  const edSeed = s('envelope ed25519');
  const maker = envelopeMaker({ formats: ['jws', 'cose'], ed25519: edSeed });
  const bundle = {
    ...issueProof({ answer, model: 'm', ts: 1_767_225_600 }, { receipt: K.answer, envelopes: maker }),
    scitt: toBase64Url(transparent),
  };
  const run = issueRun(
    {
      id: 'r',
      goal: 'g',
      steps: [{ i: 0, action: 'a', output_sha256: 'aa'.repeat(32), verify: 'schema', credits: 1 }],
      status: 'done',
      budgetCredits: 2,
      spentCredits: 1,
    },
    { model: 'm', ts: 1_767_225_600 },
    { receipt: K.autopilot, envelopes: maker },
  );
  const policy: RegistrationPolicy = { service: [coseKey('ML-DSA-87', K.answer.publicKey)], listed: [], reserved };
  const envelopeKey = [{ algo: 'Ed25519', public_key_hex: toHex(maker.ed25519PublicKey!) }];
  const stranger = testKeys('fuzz-unsigned stranger');
  return { K, answer, statement, transparent, receipts, root, logKeys, bundle, run, policy, envelopeKey, stranger, s };
}
type Corpus = ReturnType<typeof corpus>;

const pick = <T>(r: () => number, xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;

/** A bundle as plain JSON, to change members of. */
type Doc = {
  receipt: Record<string, unknown> & { envelopes: { jws: unknown; cose: string[] } };
  receiptKey?: unknown;
  [k: string]: unknown;
};
const copy = (x: unknown): Doc => JSON.parse(JSON.stringify(x)) as Doc;
type SigVerdict = { alg: string; keyRecognized?: boolean };

/** A CBOR value of the kinds an attacker writes into an unsigned header. */
function oddCbor(r: () => number): CborValue {
  return pick(r, [0, -1, 394, 'x', '', new Uint8Array([0xd2]), new Uint8Array(32), [], [new Uint8Array(3)], new Map([[1, 2]]), null, true]);
}

/** The COSE_Sign1 with its unprotected header replaced. */
function reUnprotected(bytes: Uint8Array, f: (u: Map<CborValue, CborValue>) => void): Uint8Array {
  const c = readCose1(bytes);
  const u = new Map(c.unprotected);
  f(u);
  return cborEncode(new Tagged(18, [c.protectedBytes, u, c.payload, c.signature]));
}

/** A receipt whose proof array (396) says another size, index or path: unsigned, like the rest of 396. */
function reProof(receipt: Uint8Array, r: () => number): Uint8Array {
  return reUnprotected(receipt, (u) => {
    const [size, index, path] = readProof(u.get(396) as Map<CborValue, CborValue>);
    const how = Math.floor(r() * 4);
    // Leaf 5 of 11 reads as 13 of 19 with one more hash on the path: the root is the same.
    const next =
      how === 0
        ? [size + 8, index + 8, [...path, pick(r, path)]]
        : how === 1
          ? [size, (index + 1) % size, path]
          : how === 2
            ? [size + 1, index, path.slice(0, -1)]
            : [size, index, [...path].reverse()];
    u.set(396, new Map<CborValue, CborValue>([[-1, [cborEncode(next)]]]));
  });
}
/** The first RFC 9162 proof of a receipt's 396: [tree_size, leaf_index, path]. */
function readProof(vdp: Map<CborValue, CborValue>): [number, number, Uint8Array[]] {
  return cborDecode((vdp.get(-1) as Uint8Array[])[0]!) as [number, number, Uint8Array[]];
}

type Check = { family: keyof UnsignedFuzzStats['families']; what: string; run: () => Promise<string | null> };

/** One input: a change an attacker can make without a key, and what must still hold. */
function next(c: Corpus, r: () => number): Check {
  const family = pick(r, ['unsigned', 'unsigned', 'own-key', 'cross-kind'] as const);
  const logs = [{ keys: c.logKeys }];
  const issuers = c.policy.service;
  const original = verifyStatement(c.statement, issuers);
  if (family === 'unsigned') {
    const how = Math.floor(r() * 4);
    if (how === 0) {
      const label = pick(r, [1, 4, 15, 33, 258, 395, 396, -1, 'kid', 394]);
      const value = oddCbor(r);
      const t = reUnprotected(c.transparent, (u) => u.set(label, value));
      return {
        family,
        what: `statement unprotected ${String(label)} set`,
        run: async () => {
          const v = verifyTransparentStatement(t, { issuers, logs });
          const s = v.statement;
          if (
            s.ok &&
            (s.iss !== original.iss || s.sub !== original.sub || s.alg !== original.alg || toHex(s.payload!) !== toHex(original.payload!))
          )
            return 'a verified statement reports other claims';
          const reg = checkRegistration(t, c.policy);
          if (reg.ok && label !== 394) return 'registration took an unsigned member';
          if (reg.ok && reg.leaf !== original.leaf) return 'registration gave the same statement another leaf';
          return null;
        },
      };
    }
    if (how === 1) {
      const changed = c.receipts.map((x) => (r() < 0.5 ? reProof(x, r) : x));
      const t = withReceipts(c.statement, changed);
      return {
        family,
        what: 'receipt proof arrays changed',
        run: async () => {
          for (const checkpoint of [undefined, { size: SIZE, root: c.root }]) {
            const v = verifyTransparentStatement(t, { issuers, logs: [{ keys: c.logKeys, ...(checkpoint ? { checkpoint } : {}) }] });
            for (const rv of v.receipts) {
              if (!rv.ok) continue;
              if (rv.root !== toHex(c.root)) return 'a receipt verified with a root the log never signed';
              if (rv.positionSigned && (rv.index !== AT || rv.size !== SIZE)) return 'a changed position reported as signed';
              if (!checkpoint && rv.positionSigned) return 'positionSigned without a checkpoint';
            }
          }
          return null;
        },
      };
    }
    if (how === 2) {
      const t = reUnprotected(c.transparent, (u) => {
        const rs = [...((u.get(394) as Uint8Array[]) ?? [])];
        const op = Math.floor(r() * 4);
        if (op === 0) rs.reverse();
        else if (op === 1) rs.push(rs[0]!);
        else if (op === 2) rs.splice(0, 1);
        else rs.push(new Uint8Array([0xd2, 0x84, 0x40, 0xa0, 0xf6, 0x40]));
        u.set(394, rs);
      });
      return {
        family,
        what: 'receipts reordered, repeated, removed or junk added',
        run: async () => {
          if (toHex(statementLeaf(t)) !== original.leaf) return 'receipts changed the leaf';
          const reg = checkRegistration(t, c.policy);
          if (reg.ok && reg.leaf !== original.leaf) return 'registration gave another leaf';
          return null;
        },
      };
    }
    // Bundle members outside the signature: a layer removed or garbled never raises what is verified.
    const b = copy(c.bundle);
    const member = pick(r, ['envelopes', 'scitt', 'framing', 'slh']);
    if (member === 'scitt') b.scitt = pick(r, [undefined, '', toBase64Url(c.statement), toBase64Url(reProof(c.receipts[0]!, r))]);
    else if (member === 'envelopes')
      (b.receipt as Record<string, unknown>).envelopes = pick(r, [
        undefined,
        {},
        { jws: b.receipt.envelopes.jws },
        { cose: [b.receipt.envelopes.cose[1]] },
      ]);
    else b.receipt[member] = oddCbor(r) instanceof Uint8Array ? 'x' : { forged: true };
    return {
      family,
      what: `bundle ${member} changed`,
      run: async () => {
        const res = await verifyBundle(b, {
          trustedKeys: c.K.trustedKeys,
          envelopes: envelopeChecker,
          scitt: scittChecker({ logs }),
          trustedEnvelopeKeys: c.envelopeKey,
        });
        const v = res.verdict as { overallOk: boolean; receipt?: { answerHashOk?: boolean } };
        if (v.overallOk && v.receipt?.answerHashOk !== true) return 'passed without its answer hash';
        return null;
      },
    };
  }
  if (family === 'own-key') {
    // The bundle names another key, its own: the receipt re-signed by a stranger, or only the
    // Ed25519 envelopes re-made by a stranger whose key the bundle carries.
    const strangerEnvelopes = r() < 0.5;
    const b = strangerEnvelopes
      ? issueProof(
          { answer: c.answer, model: 'm', ts: 1_767_225_600 },
          { receipt: c.K.answer, envelopes: envelopeMaker({ formats: ['jws', 'cose'], ed25519: c.s(`stranger ${r()}`) }) },
        )
      : issueProof(
          { answer: c.answer, model: 'm', ts: 1_767_225_600 },
          { receipt: c.stranger.answer, envelopes: envelopeMaker({ formats: ['jws', 'cose'] }) },
        );
    return {
      family,
      what: strangerEnvelopes ? "a stranger's Ed25519 envelopes" : "a stranger's receipt key",
      run: async () => {
        const res = await verifyBundle(b, { trustedKeys: c.K.trustedKeys, envelopes: envelopeChecker, trustedEnvelopeKeys: c.envelopeKey });
        const v = res.verdict as {
          signerRecognized?: boolean;
          receipt?: { envelopes?: { jws?: { signatures: SigVerdict[] }; cose?: { signatures: SigVerdict[] }[] } };
        };
        if (!strangerEnvelopes && v.signerRecognized) return "a bundle's own receipt key counted as pinned";
        const sigs = [
          ...(v.receipt?.envelopes?.jws?.signatures ?? []),
          ...(v.receipt?.envelopes?.cose?.flatMap((x) => x.signatures) ?? []),
        ];
        for (const s of sigs) {
          if (s.alg === 'Ed25519' && s.keyRecognized) return "a bundle's own Ed25519 key counted as pinned";
          if (s.alg === 'ML-DSA-87' && s.keyRecognized && !strangerEnvelopes) return "a stranger's ML-DSA-87 envelope counted as pinned";
        }
        return null;
      },
    };
  }
  // cross-kind: one kind's signed object offered as another.
  const names = namesFor('svc');
  const how = Math.floor(r() * 4);
  return {
    family: 'cross-kind',
    what: ['answer envelope as statement', 'receipt as statement', 'run envelope as answer envelope', 'run receipt in a proof'][how]!,
    run: async () => {
      if (how === 0) {
        const env = fromBase64Url(copy(c.bundle).receipt.envelopes.cose[0]!)!;
        if (verifyStatement(env, issuers).ok || checkRegistration(env, c.policy).ok)
          return 'an answer-receipt envelope verified as a statement';
      } else if (how === 1) {
        const rc = pick(r, c.receipts);
        if (verifyStatement(rc, c.logKeys).ok || checkRegistration(rc, c.policy).ok) return 'a COSE receipt verified as a statement';
        if (verifyReceipt(c.statement, fromHex(original.leaf, 32)!, { keys: issuers }).ok) return 'a statement verified as a receipt';
      } else if (how === 2) {
        const env = fromBase64Url(copy(c.run).receipt.envelopes.cose[1]!)!;
        const keys = [coseKey('Ed25519', fromHex(c.envelopeKey[0]!.public_key_hex, 32)!)];
        if (verifyCose1(env, keys, { typ: envelopeTypes(names, 'answer').cose }).ok) return "a run's envelope verified as an answer's";
      } else {
        const b = copy(c.bundle);
        const run = copy(c.run);
        b.receipt = run.receipt;
        b.receiptKey = run.receiptKey;
        const res = await verifyBundle(b, { trustedKeys: c.K.trustedKeys, envelopes: envelopeChecker }).catch(() => null);
        if (res?.verdict.overallOk) return "a run's receipt passed as an answer's";
      }
      return null;
    },
  };
}

/**
 * Run the round-five fuzzer for `inputs` inputs (or until `stop`). Findings: a check that failed
 * (kind `forgery`), a throw where a verdict was due, or a call over `slowMs`.
 *
 * @example
 * ```ts
 * const s = await fuzzUnsigned({ seed: 5, inputs: 200, now: () => performance.now() });
 * if (s.findings.length) console.log(s.findings);
 * ```
 */
export async function fuzzUnsigned(o: {
  seed: number;
  inputs?: number;
  stop?: () => boolean;
  now: () => number;
  slowMs?: number;
}): Promise<UnsignedFuzzStats> {
  const c = corpus(o.seed);
  const r = prng(o.seed);
  const stats: UnsignedFuzzStats = { inputs: 0, families: { unsigned: 0, 'own-key': 0, 'cross-kind': 0 }, maxMs: 0, findings: [] };
  for (let i = 0; o.inputs === undefined || i < o.inputs; i++) {
    if (o.stop?.()) break;
    const check = next(c, r);
    const t0 = o.now();
    let wrong: string | null;
    try {
      wrong = await check.run();
    } catch (e) {
      stats.findings.push({ kind: 'throw', seed: o.seed, index: i, description: check.what, detail: String(e).slice(0, 500) });
      wrong = null;
    }
    const ms = o.now() - t0;
    stats.maxMs = Math.max(stats.maxMs, ms);
    if (ms > (o.slowMs ?? 2000))
      stats.findings.push({ kind: 'slow', seed: o.seed, index: i, description: check.what, detail: `${Math.round(ms)} ms` });
    if (wrong) stats.findings.push({ kind: 'forgery', seed: o.seed, index: i, description: check.what, detail: wrong });
    stats.inputs++;
    stats.families[check.family]++;
  }
  return stats;
}
