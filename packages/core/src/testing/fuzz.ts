// A structure-aware mutation fuzzer for every bundle kind. It takes valid documents, changes them
// the way an attacker would (members, types, nesting, Unicode, raw JSON bytes), and checks what
// must always hold: verification answers with a verdict or the typed refusal and nothing else, no
// call is slow, and no change to signed content still verifies. Zero I/O: the clock is handed in.
import fc from 'fast-check';
import { SvcError } from '../errors.js';
import type { CryptoBackend } from '../crypto/backend.js';
import { utf8 } from '../encoding/bytes.js';
import { verifyBundle } from '../dispatch.js';
import type { JsonObject } from '../lib/json.js';
import { issueProof } from '../issue/bundles.js';
import {
  consistencyBundleArb,
  exportArchive,
  isDisplayOnlyPath,
  leafPaths,
  proofBundle,
  provenanceRecord,
  runBundle,
  sthBundle,
  transcriptBundle,
} from './arbitraries.js';
import { testKeys, type TestKeys } from './keys.js';
import { fromHex } from '../encoding/bytes.js';
import { sha256, textSha256Hex } from '../encoding/hash.js';
import { MemoryTree } from '../merkle/memory.js';
import { inclusionProof, treeRoot } from '../merkle/prove.js';
import { formatCheckpoint } from '../tlog/checkpoint.js';
import { noteSigner, signNote } from '../tlog/keys.js';
import { formatTlogProof } from '../tlog/proof.js';
import { logKeygen } from '../tlog/signatures.js';
import { logPolicy } from '../tlog/policy-checker.js';
import { envelopeChecker, envelopeMaker } from '../envelope/receipt.js';

type Path = (string | number)[];

/**
 * A small deterministic PRNG (mulberry32), so every case can be replayed from its seed.
 *
 * @example
 * ```ts
 * const r = prng(42);
 * r(); // a number in [0, 1), the same sequence for the same seed
 * ```
 */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * Valid documents of every kind, the same for the same seed.
 *
 * @example
 * ```ts
 * for (const { kind, doc } of fuzzCorpus(3)) console.log(kind, (await verifyBundle(doc, { trustedKeys: testKeys().trustedKeys })).verdict.overallOk);
 * ```
 */
export function fuzzCorpus(seed = 1, keys: TestKeys = testKeys(), service?: string, perKind = 3): { kind: string; doc: JsonObject }[] {
  const out: { kind: string; doc: JsonObject }[] = [];
  const take = (kind: string, arb: fc.Arbitrary<JsonObject>) => {
    for (const doc of fc.sample(arb, { seed, numRuns: perKind })) out.push({ kind, doc });
  };
  take('proof', proofBundle(keys, service));
  take('transcript', transcriptBundle(keys, service));
  take('run', runBundle(keys, service));
  take('export', exportArchive(keys, service));
  take('sth', sthBundle(keys, service));
  take('consistency', consistencyBundleArb(keys, service, 40));
  take('record', provenanceRecord(keys, service));
  // Every optional layer at once: bridge attestation with a Falcon co-signature, question, framing.
  const full = issueProof(
    {
      answer: 'Total: 100 \uFFFD 🇫🇷',
      prompt: 'What is the total?',
      framing: { persona: 1, voice: 0, attachment: 1, history_turns: 3 },
      excerpt: { start: 0, end: 5 },
      model: 'm',
      ts: 1_700_000_000,
      council_grounded: true,
    },
    { receipt: keys.answer, bridge: { primary: keys.bridgePrimary, cosign: keys.bridgeCosign }, random: keys.random },
    { service },
  );
  out.push({ kind: 'proof', doc: full as unknown as JsonObject });
  out.push({ kind: 'logged', doc: loggedProof(seed, keys, service) });
  // A receipt with its JWS and COSE envelopes (ML-DSA-87 and Ed25519): strict JOSE and CBOR readers
  // get every mutation of them.
  const enveloped = issueProof(
    { answer: `Enveloped ${seed}`, prompt: 'Q?', model: 'm', ts: 1_700_000_000 },
    { receipt: keys.answer, envelopes: envelopeMaker({ formats: ['jws', 'cose'], ed25519: sha256(utf8(`fuzz-ed25519-${seed}`)) }) },
    { service },
  );
  out.push({ kind: 'proof', doc: enveloped as unknown as JsonObject });
  return out;
}

const FUZZ_LOG = 'fuzz.example/answers';
/**
 * The log key the logged corpus document is signed by, and the policy that pins it.
 *
 * @example
 * ```ts
 * const res = await verifyBundle(doc, { logPolicy: logPolicy(fuzzLog().policy) });
 * ```
 */
export function fuzzLog() {
  const signer = noteSigner(FUZZ_LOG, logKeygen('ed25519', sha256(utf8('fuzz log'))));
  return { signer, policy: `log ${signer.vkey}\nquorum none\n` };
}

/**
 * A proof logged in a log the fuzzer pins (its `tlogProof` layer judged by a policy), whose answer
 * carries direction overrides, isolates and zero-width characters: the families of forged log
 * proofs and text that displays other than it was signed (#30).
 */
function loggedProof(seed: number, keys: TestKeys, service?: string): JsonObject {
  const answer = `Pay \u202Eevil\u202C 100 \u2066EUR\u2069\u200B to \u200Dme\uFEFF`;
  const proof = issueProof({ answer, model: 'm', ts: 1_700_000_000 }, { receipt: keys.answer }, { service }) as unknown as JsonObject;
  const t = new MemoryTree();
  for (let i = 0; i < 5 + (seed % 7); i++) t.appendData(sha256(utf8(`other ${seed} ${i}`)));
  const index = t.size;
  t.appendData(fromHex(textSha256Hex(answer), 32)!);
  const size = t.size + 2;
  t.appendData(sha256(utf8('after 1')));
  t.appendData(sha256(utf8('after 2')));
  const text = formatCheckpoint({ origin: FUZZ_LOG, size, root: treeRoot(t, size), extensions: [] });
  const checkpoint = signNote(text, [fuzzLog().signer], 1_700_000_100);
  return { ...proof, tlogProof: formatTlogProof({ index, proof: inclusionProof(t, index, size), checkpoint }) };
}

/** The tlogProof member of a mutant's input, whatever form the input took (null when unreadable). */
function tlogOf(input: unknown): unknown {
  try {
    const doc =
      typeof input === 'string' ? JSON.parse(input) : input instanceof Uint8Array ? JSON.parse(new TextDecoder().decode(input)) : input;
    return doc && typeof doc === 'object' ? (doc as JsonObject).tlogProof : null;
  } catch {
    return null;
  }
}

/**
 * One mutated document: the input to verify, what was changed, and whether it must fail.
 *
 * @example
 * ```ts
 * const m: Mutant = mutate(doc, prng(1), 'proof');
 * const res = await verifyBundle(m.input).catch(() => null);
 * if (m.mustFail && res?.verdict.overallOk) throw new Error(`forgery: ${m.description}`);
 * ```
 */
export interface Mutant {
  /** The document to verify: a JSON value, JSON text, or raw bytes. */
  input: unknown;
  description: string;
  /** True when signed content was changed, so the result must not verify. */
  mustFail: boolean;
}

const clone = <T>(x: T): T => JSON.parse(JSON.stringify(x)) as T;

/** Whether two JSON values differ; a value too deep to serialise differs from every corpus value. */
function differ(a: unknown, b: unknown): boolean {
  try {
    return JSON.stringify(a) !== JSON.stringify(b) || typeof a !== typeof b;
  } catch {
    return true;
  }
}
const pick = <T>(r: () => number, xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;

function getAt(root: unknown, path: Path): unknown {
  let cur = root as Record<string | number, unknown> | undefined;
  for (const p of path) cur = cur?.[p] as Record<string | number, unknown> | undefined;
  return cur;
}

function setAt(root: unknown, path: Path, value: unknown): void {
  let cur = root as Record<string | number, unknown>;
  for (let i = 0; i < path.length - 1; i++) cur = cur[path[i]!] as Record<string | number, unknown>;
  Object.defineProperty(cur, path[path.length - 1]!, { value, enumerable: true, writable: true, configurable: true });
}

/** Every path to a member or element, interior ones included. */
function allPaths(v: unknown, prefix: Path = []): Path[] {
  const out: Path[] = prefix.length ? [prefix] : [];
  if (Array.isArray(v)) for (const [i, x] of v.entries()) out.push(...allPaths(x, [...prefix, i]));
  else if (v && typeof v === 'object') for (const [k, x] of Object.entries(v)) out.push(...allPaths(x, [...prefix, k]));
  return out;
}

function deep(r: () => number): unknown {
  const depth = pick(r, [50, 501, 2_000, 20_000, 200_000]);
  const open = r() < 0.5 ? '[' : '{"a":';
  const close = open === '[' ? ']' : '}';
  return JSON.parse(`${open.repeat(depth)}0${close.repeat(depth)}`);
}

const ODD_NUMBERS = [-1, 0, -0, 1e21, 2 ** 53, 2 ** 53 + 2, -(2 ** 63), 1.5, 1e-7, Number.MAX_VALUE];
const ODD_STRINGS = [
  '',
  '\u0000',
  '\uD800',
  '\uDC00x',
  '\uFFFD',
  '\u202E',
  '𝟘',
  'a'.repeat(10_000),
  '__proto__',
  '0'.repeat(64),
  'ML-DSA-87',
  'svc-proof',
];
const ODD_NAMES = ['__proto__', 'constructor', 'prototype', 'kind', 'sig', 'receipt', 'turns', '', '\uD800'];

function oddValue(r: () => number): unknown {
  switch (Math.floor(r() * 7)) {
    case 0:
      return pick(r, ODD_NUMBERS);
    case 1:
      return pick(r, ODD_STRINGS);
    case 2:
      return pick(r, [null, true, false]);
    case 3:
      return [];
    case 4:
      return {};
    case 5:
      return deep(r);
    default:
      return [pick(r, ODD_STRINGS), pick(r, ODD_NUMBERS)];
  }
}

function changedScalar(v: unknown, r: () => number): unknown {
  if (typeof v === 'string') {
    if (v.length === 0) return 'x';
    const i = Math.floor(r() * v.length);
    const choices = [
      () => v.slice(0, i) + (v[i] === '0' ? '1' : '0') + v.slice(i + 1),
      () => v.slice(0, i) + v.slice(i + 1),
      () => v + pick(r, [' ', '0', '\uFFFD', '\uD800']),
      () => v.toUpperCase(),
      () => v.replace('\uFFFD', '\uD800'),
    ];
    return pick(r, choices)();
  }
  if (typeof v === 'number') return pick(r, [v + 1, v - 1, -v - 1, v * 2 + 1, v + 0.5]);
  if (typeof v === 'boolean') return !v;
  return 'x';
}

// What re-verification of a record checks (V4, V8): its proof, the attested summary (an under-claim
// of signer_recognized is allowed), and the fixed texts. Its other members are labels.
const RECORD_CHECKED = new Set(['attested', 'record_type', 'ai_act_support', 'disclaimer', 'schema_version']);

// A receipt that is not an object is an absent receipt (wire-format s.3), and a bundle may pass on
// its other layer: replacing it with a non-object removes a layer, like a deletion.
function removesLayer(p: Path, value: unknown): boolean {
  const last = p[p.length - 1];
  return last === 'receipt' && (value === null || typeof value !== 'object' || Array.isArray(value));
}

function isSignedPath(kind: string, p: Path): boolean {
  if (kind !== 'record') return !isDisplayOnlyPath(p);
  if (p[0] === 'proof') return p.length > 1 && !isDisplayOnlyPath(p.slice(1));
  if (p[0] === 'attested') return p[1] !== 'signer_recognized';
  return RECORD_CHECKED.has(String(p[0]));
}

/**
 * One mutation of a valid document of `kind`, with whether it changed signed content.
 *
 * @example
 * ```ts
 * const r = prng(7);
 * for (const { kind, doc } of fuzzCorpus(7)) {
 *   const m = mutate(doc, r, kind);
 *   if (m.mustFail) console.log(m.description);
 * }
 * ```
 */
export function mutate(doc: JsonObject, r: () => number, kind = 'proof'): Mutant {
  const m = clone(doc);
  const leaves = leafPaths(m).filter((p) => p.length > 0);
  const paths = allPaths(m);
  const signed = (p: Path) => isSignedPath(kind, p);
  const op = Math.floor(r() * 12);
  switch (op) {
    case 0:
    case 1: {
      const p = pick(r, leaves);
      const before = getAt(m, p);
      const after = changedScalar(before, r);
      setAt(m, p, after);
      const differs = differ(before, after);
      return { input: m, description: `change ${p.join('.')}`, mustFail: differs && signed(p) };
    }
    case 2: {
      const p = pick(r, paths);
      const v = oddValue(r);
      const differs = differ(getAt(m, p), v);
      setAt(m, p, v);
      return {
        input: m,
        description: `replace ${p.join('.')}`,
        mustFail: differs && signed(p) && leaves.some((l) => l.length >= p.length && p.every((x, i) => l[i] === x)) && !removesLayer(p, v),
      };
    }
    case 3: {
      const p = pick(r, paths);
      const parent = getAt(m, p.slice(0, -1)) as unknown[] | Record<string | number, unknown>;
      if (Array.isArray(parent)) parent.splice(p[p.length - 1] as number, 1);
      else delete parent[p[p.length - 1]!];
      return { input: m, description: `delete ${p.join('.')}`, mustFail: false };
    }
    case 4: {
      const objs = [[], ...paths].filter((p) => {
        const v = getAt(m, p);
        return v !== null && typeof v === 'object' && !Array.isArray(v);
      });
      const p = pick(r, objs);
      const name = pick(r, ODD_NAMES);
      const target = getAt(m, p) as JsonObject;
      const existed = Object.hasOwn(target, name);
      const before = target[name];
      const value = oddValue(r);
      Object.defineProperty(target, name, { value, enumerable: true, writable: true, configurable: true });
      // Overwriting a signed member with a different value must fail; the same value changes nothing.
      return {
        input: m,
        description: `insert ${[...p, name].join('.')}`,
        mustFail: existed && differ(before, value) && signed([...p, name]) && !removesLayer([...p, name], value),
      };
    }
    case 5: {
      const strings = leaves.filter((p) => typeof getAt(m, p) === 'string');
      const a = pick(r, strings);
      const b = pick(r, strings);
      const va = getAt(m, a);
      const vb = getAt(m, b);
      setAt(m, a, vb);
      setAt(m, b, va);
      // Two whole COSE envelopes trade places: each still signs the receipt, nothing signed moved.
      const bothEnvelopes = [a, b].every((p) => p.at(-2) === 'cose' && p.at(-3) === 'envelopes');
      return {
        input: m,
        description: `swap ${a.join('.')} ${b.join('.')}`,
        mustFail: va !== vb && !bothEnvelopes && (signed(a) || signed(b)),
      };
    }
    case 6: {
      const arrays = paths.filter((p) => Array.isArray(getAt(m, p)) && (getAt(m, p) as unknown[]).length > 0);
      if (arrays.length === 0) return { input: m, description: 'unchanged', mustFail: false };
      const p = pick(r, arrays);
      const arr = getAt(m, p) as unknown[];
      const before = JSON.stringify(arr);
      const how = Math.floor(r() * 3);
      if (how === 0) arr.reverse();
      else if (how === 1) arr.push(clone(arr[0]));
      else arr.unshift(clone(arr[arr.length - 1]));
      const differs = before !== JSON.stringify(arr);
      // A transcript's turns are signed one by one, not as a sequence, and key lists are looked up
      // by key id: neither order is signed.
      const last = p[p.length - 1];
      // Neither is the order of a receipt's envelopes or of a JWS's signatures: each stands alone.
      const inEnvelopes = p.includes('envelopes') && (last === 'cose' || last === 'signatures');
      const orderSigned = !((p.length === 1 && last === 'turns') || last === 'bridgeKeys' || inEnvelopes);
      return { input: m, description: `reorder ${p.join('.')}`, mustFail: differs && orderSigned && signed([...p, 0]) && how === 0 };
    }
    case 7:
      return { input: m, description: 'valid', mustFail: false };
    case 8: {
      // A forged member placed before a genuine one of the same name: JSON.parse keeps the genuine
      // one, a first-wins reader the forgery. Not I-JSON, so always refused.
      const objs = [[], ...paths].filter((p) => {
        const v = getAt(m, p);
        return v !== null && typeof v === 'object' && !Array.isArray(v) && Object.keys(v).length > 0;
      });
      const p = pick(r, objs);
      const target = getAt(m, p) as JsonObject;
      const name = pick(r, Object.keys(target));
      const marker = '\u0000duplicate\u0000';
      const forged = pick(r, ['forged', 0, null, true, {}, []] as unknown[]);
      const inner = `{${JSON.stringify(name)}:${JSON.stringify(forged)},${JSON.stringify(target).slice(1)}`;
      let text: string;
      if (p.length === 0) text = inner;
      else {
        setAt(m, p, marker);
        text = JSON.stringify(m).replace(JSON.stringify(marker), inner);
      }
      return { input: text, description: `duplicate ${[...p, name].join('.')}`, mustFail: true };
    }
    case 9: {
      // A number no double holds exactly, in place of one: one value to JSON.parse, another to an
      // exact reader. Not I-JSON, so always refused.
      const numbers = leaves.filter((p) => typeof getAt(m, p) === 'number');
      const lit = pick(r, ['9007199254740993', '1.0000000000000001', '1e400', '-9.007199254740993e15', '123456789012345678901234567890']);
      if (numbers.length === 0) return { input: `{"n":${lit}}`, description: `inexact number ${lit}`, mustFail: true };
      const p = pick(r, numbers);
      const marker = '\u0000number\u0000';
      setAt(m, p, marker);
      return {
        input: JSON.stringify(m).replace(JSON.stringify(marker), lit),
        description: `inexact number at ${p.join('.')}`,
        mustFail: true,
      };
    }
    default: {
      // Raw bytes: the JSON text truncated, with a byte flipped, or with bytes spliced in.
      const text = utf8(JSON.stringify(m));
      const i = Math.floor(r() * text.length);
      const how = Math.floor(r() * 4);
      let out: Uint8Array;
      if (how === 0) out = text.subarray(0, i);
      else if (how === 1) {
        out = text.slice();
        out[i] = out[i]! ^ (1 << Math.floor(r() * 8));
      } else if (how === 2) {
        const ins = pick(r, [
          utf8('{'),
          utf8('"'),
          utf8('\\u'),
          new Uint8Array([0xff, 0xfe]),
          new Uint8Array([0xed, 0xa0, 0x80]),
          utf8(',"kind":"x"'),
        ]);
        out = new Uint8Array(text.length + ins.length);
        out.set(text.subarray(0, i));
        out.set(ins, i);
        out.set(text.subarray(i), i + ins.length);
      } else out = text;
      return {
        input: how === 3 ? new TextDecoder().decode(out) : out,
        description: `bytes ${['truncate', 'flip', 'splice', 'text'][how]} at ${i}`,
        mustFail: false,
      };
    }
  }
}

/**
 * A fuzzer finding: an untyped throw, a slow call, or a changed document that still verified.
 *
 * @example
 * ```ts
 * for (const f of (await fuzzVerify({ seed: 1, inputs: 100, now: () => performance.now() })).findings) console.log(f.kind, f.description);
 * ```
 */
export interface FuzzFinding {
  kind: 'throw' | 'slow' | 'forgery';
  seed: number;
  index: number;
  description: string;
  detail: string;
}

/**
 * What a fuzzVerify run saw: verdicts, passes, refusals by code, the slowest call and any findings.
 *
 * @example
 * ```ts
 * const stats: FuzzStats = await fuzzVerify({ seed: 1, inputs: 100, now: () => performance.now() });
 * ```
 */
export interface FuzzStats {
  inputs: number;
  verdicts: number;
  passed: number;
  refusals: Record<string, number>;
  maxMs: number;
  findings: FuzzFinding[];
}

/**
 * Options of fuzzVerify: a seed, how many inputs (or a stop condition) and a clock for the slow-call check.
 *
 * @example
 * ```ts
 * const opts: FuzzOptions = { seed: 1, inputs: 1000, now: () => performance.now() };
 * ```
 */
export interface FuzzOptions {
  seed: number;
  /** How many inputs; or run until `stop` says so. */
  inputs?: number;
  stop?: () => boolean;
  /** A millisecond clock, for the slow-call check. */
  now: () => number;
  slowMs?: number;
  keys?: TestKeys;
  service?: string;
  corpus?: { kind: string; doc: JsonObject }[];
  /** The backend verification runs on (default: the runtime's, as verifyBundle picks it). */
  crypto?: CryptoBackend;
}

/** A finding's input, shortened; one nested past the stack is described, not serialised. */
function preview(input: unknown): string {
  try {
    return (
      typeof input === 'string' ? input : input instanceof Uint8Array ? new TextDecoder().decode(input) : JSON.stringify(input)
    ).slice(0, 2000);
  } catch {
    return '(a document nested too deeply to print)';
  }
}

/**
 * Run the fuzzer; findings are returned, never thrown, so a campaign can count them.
 *
 * @example
 * ```ts
 * const stats = await fuzzVerify({ seed: 20261122, inputs: 400, now: () => performance.now() });
 * if (stats.findings.length > 0) throw new Error(JSON.stringify(stats.findings));
 * ```
 */
export async function fuzzVerify(o: FuzzOptions): Promise<FuzzStats> {
  const keys = o.keys ?? testKeys();
  const corpus = o.corpus ?? fuzzCorpus(o.seed, keys, o.service);
  const r = prng(o.seed);
  const stats: FuzzStats = { inputs: 0, verdicts: 0, passed: 0, refusals: {}, maxMs: 0, findings: [] };
  const slow = o.slowMs ?? 1000;
  for (let i = 0; o.inputs === undefined || i < o.inputs; i++) {
    if (o.stop?.()) break;
    const { kind, doc } = pick(r, corpus);
    const logged = kind === 'logged';
    const m = mutate(doc, r, logged ? 'proof' : kind);
    // A changed log layer is a forgery only when it still passes as recognised by the pinned log:
    // an unknown or missing log signature is reported apart (logRecognized: false), as designed.
    const tlogChanged = logged && tlogOf(m.input) !== doc.tlogProof;
    const t0 = o.now();
    try {
      const res = await verifyBundle(m.input, {
        trustedKeys: keys.trustedKeys,
        service: o.service,
        ...(o.crypto ? { crypto: o.crypto } : {}),
        ...(logged ? { logPolicy: logPolicy(fuzzLog().policy) } : {}),
        envelopes: envelopeChecker,
      });
      stats.verdicts++;
      if (res.verdict.overallOk) {
        stats.passed++;
        const log = (res.verdict as { log?: { logRecognized?: boolean } }).log;
        if (tlogChanged ? log?.logRecognized === true : m.mustFail)
          stats.findings.push({
            kind: 'forgery',
            seed: o.seed,
            index: i,
            description: m.description,
            detail: preview(m.input),
          });
      }
    } catch (e) {
      if (e instanceof SvcError) stats.refusals[e.code] = (stats.refusals[e.code] ?? 0) + 1;
      else
        stats.findings.push({
          kind: 'throw',
          seed: o.seed,
          index: i,
          description: m.description,
          detail: e instanceof Error ? `${e.name}: ${e.message}` : String(e),
        });
    }
    const ms = o.now() - t0;
    stats.maxMs = Math.max(stats.maxMs, ms);
    if (ms > slow)
      stats.findings.push({ kind: 'slow', seed: o.seed, index: i, description: m.description, detail: `${Math.round(ms)} ms` });
    stats.inputs++;
  }
  return stats;
}
