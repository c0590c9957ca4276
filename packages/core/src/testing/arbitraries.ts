// fast-check arbitraries for valid bundles and their mutations, so an application can
// property-test its own integration: every valid bundle must pass, every mutation must fail.
import fc from 'fast-check';
import { issueConsistency, issueProof, issueRun, issueExport, issueTranscript, signTreeHead, type ProofInput } from '../issue/bundles.js';
import { buildRecord } from '../record/build.js';
import { MemoryTree } from '../merkle/memory.js';
import { consistencyProof, treeRoot } from '../merkle/prove.js';
import { toHex } from '../encoding/bytes.js';
import type { JsonObject } from '../lib/json.js';
import { testKeys, type TestKeys } from './keys.js';

/**
 * Any Unicode text, astral planes included (never lone surrogates: those are not I-JSON).
 *
 * @example
 * ```ts
 * import fc from 'fast-check';
 * fc.assert(fc.property(anyText(64), (s) => textSha256Hex(s) !== null)); // well-formed text only
 * ```
 */
export const anyText = (maxLength = 64): fc.Arbitrary<string> => fc.string({ unit: 'binary', maxLength });

/**
 * fast-check arbitrary of issueProof inputs (answers, questions, framing flags, excerpts).
 *
 * @example
 * ```ts
 * import fc from 'fast-check';
 * const K = testKeys();
 * fc.assert(fc.property(proofInput(), (input) => verifyBundleSync(issueProof(input, { receipt: K.answer }), { trustedKeys: K.trustedKeys }).verdict.overallOk));
 * ```
 */
export function proofInput(): fc.Arbitrary<ProofInput> {
  const framing = fc.record({
    persona: fc.constantFrom(0 as const, 1 as const),
    voice: fc.constantFrom(0 as const, 1 as const),
    attachment: fc.constantFrom(0 as const, 1 as const),
    history_turns: fc.nat({ max: 50 }),
  });
  return fc
    .record(
      {
        answer: anyText(80).filter((s) => s.length > 0),
        model: fc.string({ minLength: 1, maxLength: 16 }),
        ts: fc.integer({ min: 1_600_000_000, max: 2_000_000_000 }),
        prompt: fc.option(anyText(40), { nil: undefined }),
        framing: fc.option(framing, { nil: undefined }),
        council_grounded: fc.option(fc.boolean(), { nil: undefined }),
        governance_flag: fc.option(fc.constantFrom('ok', 'review', 'restricted'), { nil: undefined }),
        excerpt: fc.option(fc.tuple(fc.nat(), fc.nat()), { nil: undefined }),
      },
      { requiredKeys: ['answer', 'model', 'ts'] },
    )
    .map((r) => {
      const input: ProofInput = { answer: r.answer, model: r.model, ts: r.ts };
      if (r.prompt !== undefined) input.prompt = r.prompt;
      if (r.prompt !== undefined && r.framing) input.framing = r.framing;
      if (r.council_grounded !== undefined) input.council_grounded = r.council_grounded;
      if (r.governance_flag !== undefined) input.governance_flag = r.governance_flag;
      if (r.excerpt) {
        const len = Array.from(r.answer).length;
        const start = r.excerpt[0] % len;
        const end = start + 1 + (r.excerpt[1] % (len - start));
        input.excerpt = { start, end };
      }
      return input;
    });
}

/**
 * Valid ProofBundles signed with deterministic test keys.
 *
 * @example
 * ```ts
 * import fc from 'fast-check';
 * const K = testKeys();
 * fc.assert(fc.asyncProperty(proofBundle(K), async (b) => (await verifyBundle(b, { trustedKeys: K.trustedKeys })).signerRecognized));
 * ```
 */
export function proofBundle(keys: TestKeys = testKeys(), service?: string): fc.Arbitrary<JsonObject> {
  return proofInput().map((input) => issueProof(input, { receipt: keys.answer }, { service }));
}

/**
 * fast-check arbitrary of valid autopilot run bundles signed by the test keys.
 *
 * @example
 * ```ts
 * import fc from 'fast-check';
 * const K = testKeys();
 * fc.assert(fc.asyncProperty(runBundle(K), async (b) => (await verifyBundle(b, { trustedKeys: K.trustedKeys })).verdict.overallOk));
 * ```
 */
export function runBundle(keys: TestKeys = testKeys(), service?: string): fc.Arbitrary<JsonObject> {
  const step = fc.record({
    i: fc.nat({ max: 100 }),
    action: fc.string({ maxLength: 12 }),
    output_sha256: fc
      .uint8Array({ minLength: 32, maxLength: 32 })
      .map((b) => Array.from(b, (x) => x.toString(16).padStart(2, '0')).join('')),
    verify: fc.constantFrom('schema', 'test', 'human', 'none'),
    credits: fc.nat({ max: 50 }),
  });
  return fc
    .record({
      id: fc.string({ minLength: 1, maxLength: 8 }),
      goal: anyText(40),
      steps: fc.array(step, { maxLength: 5 }),
      slack: fc.nat({ max: 100 }),
    })
    .map(({ id, goal, steps, slack }) => {
      const spent = steps.reduce((a, s) => a + s.credits, 0);
      return issueRun(
        { id, goal, steps, status: 'done', budgetCredits: spent + slack, spentCredits: spent },
        { model: 'autopilot', ts: 1_700_000_000 },
        { receipt: keys.autopilot },
        { service },
      );
    });
}

/**
 * fast-check arbitrary of valid export archives signed by the test keys.
 *
 * @example
 * ```ts
 * import fc from 'fast-check';
 * const K = testKeys();
 * fc.assert(fc.asyncProperty(exportArchive(K), async (b) => (await verifyBundle(b, { trustedKeys: K.trustedKeys })).verdict.overallOk));
 * ```
 */
export function exportArchive(keys: TestKeys = testKeys(), service?: string): fc.Arbitrary<JsonObject> {
  const message = fc.record({ role: fc.constantFrom('user', 'assistant'), content: anyText(30) });
  const conv = fc.record({
    id: fc.string({ minLength: 1, maxLength: 8 }),
    title: anyText(10),
    messages: fc.array(message, { maxLength: 4 }),
  });
  return fc
    .array(conv, { maxLength: 3 })
    .map((cs) => issueExport(cs, { model: 'export', ts: 1_700_000_000 }, { receipt: keys.export }, { service }));
}

/**
 * fast-check arbitrary of valid transcripts signed by the test keys.
 *
 * @example
 * ```ts
 * import fc from 'fast-check';
 * const K = testKeys();
 * fc.assert(fc.asyncProperty(transcriptBundle(K), async (b) => (await verifyBundle(b, { trustedKeys: K.trustedKeys })).verdict.overallOk));
 * ```
 */
export function transcriptBundle(keys: TestKeys = testKeys(), service?: string): fc.Arbitrary<JsonObject> {
  return fc
    .array(proofBundle(keys, service), { minLength: 1, maxLength: 4 })
    .map((turns) => issueTranscript(turns, { title: 'chat', service }));
}

/**
 * Signed tree heads and consistency bundles over one random log (sizes up to `maxLeaves`).
 *
 * @example
 * ```ts
 * import fc from 'fast-check';
 * fc.assert(fc.asyncProperty(consistencyBundle(testKeys()), async (b) => (await verifyBundle(b, { trustedKeys: testKeys().trustedKeys })).verdict.overallOk));
 * ```
 */
export function consistencyBundleArb(keys: TestKeys = testKeys(), service?: string, maxLeaves = 64): fc.Arbitrary<JsonObject> {
  return fc
    .tuple(
      fc.integer({ min: 1, max: maxLeaves }),
      fc.integer({ min: 1, max: maxLeaves }),
      fc.integer({ min: 1_600_000_000_000, max: 1_900_000_000_000 }),
      fc.nat({ max: 10_000_000 }),
    )
    .map(([a, b, t0, dt]) => {
      const [m, n] = a <= b ? [a, b] : [b, a];
      const tree = new MemoryTree();
      for (let i = 0; i < n; i++) tree.appendData(new Uint8Array([i & 255, i >> 8, m & 255]));
      const head = (size: number, timestamp: number) =>
        signTreeHead({ log: `${service ?? 'svc'}-ledger`, tree_size: size, root_hash: toHex(treeRoot(tree, size)), timestamp }, keys.sth, {
          service,
        });
      return issueConsistency(head(m, t0), head(n, t0 + dt), consistencyProof(tree, m, n), { service });
    });
}

/**
 * fast-check arbitrary of signed tree heads by the test keys.
 *
 * @example
 * ```ts
 * import fc from 'fast-check';
 * const K = testKeys();
 * fc.assert(fc.asyncProperty(sthBundle(K), async (b) => (await verifyBundle(b, { trustedKeys: K.trustedKeys })).verdict.overallOk));
 * ```
 */
export function sthBundle(keys: TestKeys = testKeys(), service?: string): fc.Arbitrary<JsonObject> {
  return consistencyBundleArb(keys, service).map((c) => c.new as JsonObject);
}

/**
 * AI Provenance Records of valid proof bundles, as the evidence endpoint makes them.
 *
 * @example
 * ```ts
 * import fc from 'fast-check';
 * const K = testKeys();
 * fc.assert(fc.asyncProperty(provenanceRecord(K), async (r) => asKind(await verifyBundle(r, { trustedKeys: K.trustedKeys }), 'record').record.summaryOk));
 * ```
 */
export function provenanceRecord(keys: TestKeys = testKeys(), service?: string): fc.Arbitrary<JsonObject> {
  return fc.tuple(proofBundle(keys, service), fc.option(fc.string({ maxLength: 40 }), { nil: undefined })).map(
    ([b, org]) =>
      buildRecord(b, {
        trustedKeys: keys.trustedKeys,
        service,
        generated: 1_800_000_000,
        ...(org !== undefined ? { org } : {}),
      }) as unknown as JsonObject,
  );
}

/**
 * Paths to every scalar leaf of a JSON value.
 *
 * @example
 * ```ts
 * leafPaths({ a: 1, b: [true] }); // [['a'], ['b', 0]]
 * ```
 */
export function leafPaths(v: unknown, prefix: (string | number)[] = []): (string | number)[][] {
  if (Array.isArray(v)) return v.flatMap((x, i) => leafPaths(x, [...prefix, i]));
  if (v && typeof v === 'object') return Object.entries(v).flatMap(([k, x]) => leafPaths(x, [...prefix, k]));
  return [prefix];
}

function setAt(root: unknown, path: (string | number)[], value: unknown): unknown {
  const copy = JSON.parse(JSON.stringify(root)) as JsonObject;
  let cur = copy as Record<string | number, unknown>;
  for (let i = 0; i < path.length - 1; i++) cur = cur[path[i]!] as Record<string | number, unknown>;
  Object.defineProperty(cur, path[path.length - 1]!, { value, enumerable: true, writable: true, configurable: true });
  return copy;
}

function getAt(root: unknown, path: (string | number)[]): unknown {
  let cur = root as Record<string | number, unknown>;
  for (const p of path) cur = cur[p] as Record<string | number, unknown>;
  return cur;
}

/** A changed scalar: strings get a character flipped or appended, numbers and booleans change. */
function changed(v: unknown, salt: number): unknown {
  if (typeof v === 'string') {
    if (v.length === 0) return 'x';
    const i = salt % v.length;
    const c = v.charCodeAt(i);
    const repl = /[0-9a-f]/.test(v[i]!) ? (v[i] === '0' ? '1' : '0') : String.fromCharCode(c === 0x41 ? 0x42 : 0x41);
    return v.slice(0, i) + repl + v.slice(i + 1);
  }
  if (typeof v === 'number') return v + 1;
  if (typeof v === 'boolean') return !v;
  return 'x';
}

/**
 * One change to a valid bundle, with what was changed.
 *
 * @example
 * ```ts
 * import fc from 'fast-check';
 * fc.assert(fc.property(mutated(proofBundle(testKeys())), (m: Mutation) => !verifyBundleSync(m.bundle).verdict.overallOk));
 * ```
 */
export interface Mutation {
  bundle: JsonObject;
  description: string;
}

/**
 * One change to a signed or checked member of a valid bundle. Members that interface.md declares
 * unsigned display data (e.g. `created`, `v`, export `context`) are left alone: changing those
 * must not fail a bundle.
 *
 * @example
 * ```ts
 * import fc from 'fast-check';
 * const K = testKeys();
 * fc.assert(
 *   fc.asyncProperty(mutated(proofBundle(K)), async ({ bundle, description }) => {
 *     const res = await verifyBundle(bundle, { trustedKeys: K.trustedKeys }).catch(() => null);
 *     return !res?.verdict.overallOk; // every change to signed content fails
 *   }),
 * );
 * ```
 */
export function mutated(
  valid: fc.Arbitrary<JsonObject>,
  skip: (path: (string | number)[]) => boolean = isDisplayOnlyPath,
): fc.Arbitrary<Mutation> {
  return valid.chain((bundle) => {
    const paths = leafPaths(bundle).filter((p) => !skip(p));
    return fc.tuple(fc.constantFrom(...paths), fc.nat(), fc.boolean(), fc.constantFrom(...paths)).map(([path, salt, swap, other]) => {
      const a = getAt(bundle, path);
      const b = getAt(bundle, other);
      if (swap && typeof a === 'string' && typeof b === 'string' && a !== b) {
        return {
          bundle: setAt(setAt(bundle, path, b), other, a) as JsonObject,
          description: `swap ${path.join('.')} <-> ${other.join('.')}`,
        };
      }
      return { bundle: setAt(bundle, path, changed(a, salt)) as JsonObject, description: `change ${path.join('.')}` };
    });
  });
}

const UNSIGNED = new Set(['created', 'title', 'exported', 'service', 'signed_manifest']);

/**
 * Whether a member is display data that no signature covers (interface.md): changing it must not
 * fail a bundle, and changing anything else must.
 *
 * @example
 * ```ts
 * isDisplayOnlyPath(['title']); // true: a transcript's title is display only
 * isDisplayOnlyPath(['receipt', 'sig']); // false
 * ```
 */
export function isDisplayOnlyPath(full: (string | number)[]): boolean {
  // A transcript turn is a ProofBundle: the same members are unsigned inside it.
  const path = full[0] === 'turns' && typeof full[1] === 'number' ? full.slice(2) : full;
  const top = path[0];
  if (path.length === 1 && (top === 'v' || UNSIGNED.has(String(top)))) return true;
  if (top === 'proof' && (path[1] === 'context' || path[1] === 'created' || path[1] === 'v') && path.length === 2) return true;
  // The receipt's `context` string is signed data; a key's is a label the verifier ignores.
  const parent = path[path.length - 2];
  if ((parent === 'receiptKey' || parent === 'key') && path[path.length - 1] === 'context') return true;
  return false;
}
