#!/usr/bin/env node
// Generates test-vectors/*.json deterministically from fixed seeds with the built @svc/core.
// Each case declares its intent (verifies or not, origin recognised or not, or the refusal); the
// expected answer is what verifyBundle returns, written only when it agrees with the intent. The
// files are committed and a test replays them, so any behaviour change shows up as a diff.
import { writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { SvcError, namesFor, verifyBundle } from '@svc/core';
import { MemoryTree, consistencyProof, inclusionProof, treeRoot } from '@svc/core/merkle';
import {
  issueConsistency,
  issueExport,
  issueProof,
  issueRun,
  issueTranscript,
  messageText,
  publishedKey,
  signTreeHead,
  toReceiptKey,
} from '@svc/core/issue';
import { aiActSupport, buildRecord } from '@svc/core/record';
import { sha256, textSha256, toHex, utf8 } from '@svc/core/primitives';
import { testKeys } from '@svc/core/testing';
import * as tlog from '@svc/core/tlog';
import { envelopeChecker, envelopeMaker } from '@svc/core/envelope';
import { root as repoRoot } from '../lib/root.mjs';

const out = join(repoRoot, 'test-vectors');
mkdirSync(out, { recursive: true });

const K = testKeys('svc-vectors-2026');
const pinned = K.trustedKeys;
const clone = (x) => JSON.parse(JSON.stringify(x));
const flip = (s, i = 10) => s.slice(0, i) + (s[i] === '0' ? '1' : '0') + s.slice(i + 1);

// What each case must show, declared beside it rather than read back from the code under test: a
// computed answer that contradicts its intent stops the generator, so a bug cannot be frozen in.
const ok = { overallOk: true, signerRecognized: true };
const okUnpinned = { overallOk: true, signerRecognized: false };
const fails = { overallOk: false, signerRecognized: false };
const refused = (status, code) => ({ status, code });

function contradiction(intent, expected) {
  if (intent.status !== undefined)
    return expected.status !== intent.status || expected.code !== intent.code ? `refusal ${intent.status} ${intent.code}` : null;
  if (expected.status !== 200) return `a verdict, got status ${expected.status} ${expected.code}`;
  const r = expected.response;
  if (r.verdict.overallOk !== intent.overallOk) return `overallOk ${intent.overallOk}`;
  if (r.signerRecognized !== intent.signerRecognized) return `signerRecognized ${intent.signerRecognized}`;
  if ('promptUnverified' in intent && r.verdict.promptUnverified !== intent.promptUnverified)
    return `promptUnverified ${intent.promptUnverified}`;
  if ('logOk' in intent && r.verdict.log?.ok !== intent.logOk) return `log.ok ${intent.logOk}`;
  if ('quorumMet' in intent && r.verdict.log?.quorumMet !== intent.quorumMet) return `log.quorumMet ${intent.quorumMet}`;
  if ('witnesses' in intent && r.verdict.log?.witnesses !== intent.witnesses) return `log.witnesses ${intent.witnesses}`;
  const layerKey = r.verdict.bridge?.keyRecognized ?? r.verdict.receipt?.diversity?.keyRecognized;
  if ('keyRecognized' in intent && layerKey !== intent.keyRecognized) return `keyRecognized ${intent.keyRecognized}`;
  return null;
}

async function vector(
  description,
  intent,
  input,
  { trustedKeys = pinned, trustedBridgeKeys, trustedEnvelopeKeys, service, inputText, logPolicy: policyText, checkEnvelopes } = {},
) {
  const v = { description, intent };
  if (service) v.service = service;
  if (inputText !== undefined) v.inputText = inputText;
  else v.input = input;
  v.trustedKeys = trustedKeys;
  if (trustedBridgeKeys) v.trustedBridgeKeys = trustedBridgeKeys;
  if (trustedEnvelopeKeys) v.trustedEnvelopeKeys = trustedEnvelopeKeys;
  // A c2sp.org/tlog-policy text: replayers pass logPolicy(text) from @svc/core/tlog.
  if (policyText) v.logPolicy = policyText;
  // Replayers pass envelopes: envelopeChecker from @svc/core/envelope (wire-format s.12).
  if (checkEnvelopes) v.checkEnvelopes = true;
  try {
    const response = await verifyBundle(inputText ?? input, {
      trustedKeys,
      trustedBridgeKeys,
      trustedEnvelopeKeys,
      service,
      ...(policyText ? { logPolicy: tlog.logPolicy(policyText) } : {}),
      ...(checkEnvelopes ? { envelopes: envelopeChecker } : {}),
    });
    v.expected = { status: 200, response };
  } catch (e) {
    if (!(e instanceof SvcError)) throw e;
    v.expected = { status: e.status, code: e.code };
  }
  const wrong = contradiction(intent, v.expected);
  if (wrong)
    throw new Error(
      `refusing to write "${description}": it declares ${wrong}, but verifyBundle answered ${JSON.stringify(v.expected).slice(0, 300)}`,
    );
  return v;
}

function write(name, description, cases) {
  if (cases.length === 0) throw new Error(`${name}: no cases`);
  writeFileSync(join(out, name), `${JSON.stringify({ description, format: 1, cases }, null, 1)}\n`);
  console.log(`${name}: ${cases.length} cases`);
}

const base = { answer: 'The Eiffel Tower is in Paris. 🗼', model: 'council-v1', ts: 1_767_225_600, created: 1_767_225_601 };
const plain = issueProof(base, { receipt: K.answer });
const envelopeSeed = sha256(utf8('svc-vectors-2026 envelope-ed25519'));
const enveloped = issueProof(base, { receipt: K.answer, envelopes: envelopeMaker({ formats: ['jws', 'cose'], ed25519: envelopeSeed }) });
const envelopeKey = [
  { algo: 'Ed25519', public_key_hex: toHex(envelopeMaker({ formats: ['jws'], ed25519: envelopeSeed }).ed25519PublicKey) },
];
// Round five, row 8: the same receipt, its Ed25519 envelopes by a stranger who names their own key.
const strangerEnveloped = issueProof(base, {
  receipt: K.answer,
  envelopes: envelopeMaker({ formats: ['jws', 'cose'], ed25519: sha256(utf8('a stranger envelope key')) }),
});
const bound = issueProof({ ...base, prompt: 'Where is the Eiffel Tower?' }, { receipt: K.answer });
const framed = issueProof(
  { ...base, prompt: 'Where is it?', framing: { persona: 1, voice: 0, attachment: 0, history_turns: 2 } },
  { receipt: K.answer },
);
const framedZero = issueProof(
  { ...base, prompt: 'Where is it?', framing: { persona: 0, voice: 0, attachment: 0, history_turns: 0 } },
  { receipt: K.answer },
);
const legacy = issueProof({ ...base, prompt: 'Where?', bindQuestion: false }, { receipt: K.answer });
const bridged = issueProof(base, { receipt: K.answer, bridge: { primary: K.bridgePrimary, cosign: K.bridgeCosign }, random: K.random });
const diverse = issueProof(base, { receipt: K.answer, slh: K.slh });
const replacement = issueProof({ ...base, answer: 'Total: 100 \uFFFD', prompt: 'Sum \uFFFD?' }, { receipt: K.answer });
// Issue 52 (wire-format s.15): a tool call signed in the message form, its tools disclosed.
const toolCallText = messageText({
  finish_reason: 'tool_calls',
  tool_calls: [{ id: 'call_1', name: 'get_weather', arguments: '{"city":"Paris"}' }],
});
const disclosedTools = { tools: [{ type: 'function', function: { name: 'get_weather', description: 'The weather in a city.' } }] };
const toolCall = issueProof(
  { ...base, answer: toolCallText, answerForm: 'message', prompt: 'Weather in Paris?', request: disclosedTools },
  { receipt: K.answer },
);
const ungrounded = issueProof({ ...base, council_grounded: false, governance_flag: 'review' }, { receipt: K.answer });

const m = (b, f) => {
  const x = clone(b);
  f(x);
  return x;
};

// A bundle carrying its logging: the answer's leaf at index 40 of 50, a checkpoint signed by the
// log's ML-DSA-44 key and cosigned by three witnesses, under a 2-of-3 policy.
const tseed = (s) => sha256(utf8(`svc-vectors-2026/tlog/${s}`));
const tlogLog = tlog.noteSigner('vectors.example/ledger', tlog.logKeygen('subtree/v1', tseed('log')));
const tlogWitnesses = [1, 2, 3].map((i) => tlog.noteSigner(`w${i}.vectors.example`, tlog.logKeygen('subtree/v1', tseed(`w${i}`))));
const tlogPolicy = `log ${tlogLog.vkey}\n${tlogWitnesses.map((w, i) => `witness W${i + 1} ${w.vkey}`).join('\n')}\ngroup G 2 W1 W2 W3\nquorum G\n`;
const tlogTree = new MemoryTree();
for (let i = 0; i < 40; i++) tlogTree.appendData(sha256(utf8(`vector leaf ${i}`)));
tlogTree.appendData(textSha256(base.answer));
for (let i = 41; i < 50; i++) tlogTree.appendData(sha256(utf8(`vector leaf ${i}`)));
const tlogText = tlog.formatCheckpoint({ origin: 'vectors.example/ledger', size: 50, root: treeRoot(tlogTree, 50), extensions: [] });
const tlogCheckpoint =
  tlog.signNote(tlogText, [tlogLog], 1_767_225_600) + tlog.signNote(tlogText, tlogWitnesses, 1_767_225_601).slice(tlogText.length + 1);
const tlogProofText = tlog.formatTlogProof({ index: 40, proof: inclusionProof(tlogTree, 40, 50), checkpoint: tlogCheckpoint });
const logged = { ...plain, tlogProof: tlogProofText };
const swapChar = (s, re) => s.replace(re, (_whole, head, c) => head + (c === 'A' ? 'B' : 'A'));

write(
  'proof.json',
  'ProofBundle: receipt layer, recognition, question binding (v:1, v:2 framing), excerpt, bridge, SLH diversity, log layer (tlogProof), V5-V7',
  [
    await vector(
      'logged (tlogProof), 2-of-3 policy: passes, log recognised, three witnesses, quorum met',
      { ...ok, logOk: true, quorumMet: true, witnesses: 3 },
      logged,
      { logPolicy: tlogPolicy },
    ),
    await vector(
      'logged, no policy: passes on the inclusion path alone, log and witnesses not judged',
      { ...ok, logOk: true, quorumMet: null, witnesses: 0 },
      logged,
    ),
    await vector(
      'logged, index changed: the log layer fails the bundle (V5)',
      { ...fails, logOk: false },
      { ...logged, tlogProof: tlogProofText.replace('index 40', 'index 41') },
      { logPolicy: tlogPolicy },
    ),
    await vector(
      'logged, a path node changed: fails',
      { ...fails, logOk: false },
      { ...logged, tlogProof: swapChar(tlogProofText, /(\nindex 40\n)(.)/) },
      { logPolicy: tlogPolicy },
    ),
    await vector(
      'logged, checkpoint size changed: fails',
      { ...fails, logOk: false },
      { ...logged, tlogProof: tlogProofText.replace('\n50\n', '\n51\n') },
      { logPolicy: tlogPolicy },
    ),
    await vector(
      "logged, the log's signature changed: fails under the policy",
      { ...fails, logOk: false },
      { ...logged, tlogProof: swapChar(tlogProofText, /(\u2014 vectors\.example\/ledger .{40})(.)/) },
      { logPolicy: tlogPolicy },
    ),
    await vector(
      'logged, two witness lines removed: passes, one witness counted, quorum not met',
      { ...ok, logOk: true, quorumMet: false, witnesses: 1 },
      {
        ...logged,
        tlogProof: tlogProofText
          .split('\n')
          .filter((l) => !l.startsWith('\u2014 w1.') && !l.startsWith('\u2014 w2.'))
          .join('\n'),
      },
      { logPolicy: tlogPolicy },
    ),
    await vector('plain answer, pinned key: passes and is recognised', ok, plain),
    await vector('plain answer, no pinned keys: passes, signer not recognised', okUnpinned, plain, { trustedKeys: [] }),
    await vector('recognition compares key bytes: a pinned key with the same key_id but other bytes does not count', okUnpinned, plain, {
      trustedKeys: [{ ...toReceiptKey(K.autopilot, 'svc-provenance-v1'), key_id: plain.receipt.key_id }],
    }),
    await vector(
      'answer altered by one space: answerHashOk false',
      fails,
      m(plain, (x) => (x.answer += ' ')),
    ),
    await vector(
      'signature altered: sigOk false',
      fails,
      m(plain, (x) => (x.receipt.sig = flip(x.receipt.sig))),
    ),
    await vector(
      'signature in uppercase hex: any other spelling fails',
      fails,
      m(plain, (x) => (x.receipt.sig = x.receipt.sig.toUpperCase())),
    ),
    await vector(
      'receipt key_id does not match the key bytes',
      fails,
      m(plain, (x) => (x.receipt.key_id = flip(x.receipt.key_id))),
    ),
    await vector(
      'receiptKey.context is a label: changing it changes nothing',
      ok,
      m(plain, (x) => (x.receiptKey.context = 'svc-sth-v1')),
    ),
    await vector('council_grounded false is signed and reported', ok, ungrounded),
    await vector(
      'council_grounded removed from a signed receipt fails',
      fails,
      m(ungrounded, (x) => delete x.receipt.council_grounded),
    ),
    await vector(
      'unknown receipt member is signed data',
      fails,
      m(plain, (x) => (x.receipt.extra = 1)),
    ),
    await vector('v:1 bound question matches: entire-input', ok, bound),
    await vector(
      'v:1 bound question swapped: fails, promptUnverified',
      fails,
      m(bound, (x) => (x.prompt = 'Where is Big Ben?')),
    ),
    await vector(
      'v:1 bound question as a non-string: fails',
      fails,
      m(bound, (x) => (x.prompt = ['Where is the Eiffel Tower?'])),
    ),
    await vector('legacy receipt with a question: unverified, reported not failed', ok, legacy),
    await vector('v:2 framing all zero: entire-input', ok, framedZero),
    await vector('v:2 framing with flags: current-message, flags disclosed', ok, framed),
    await vector(
      'v:2 framing missing: promptOk false, binding none',
      fails,
      m(framed, (x) => delete x.receipt.framing),
    ),
    await vector(
      'v:2 framing flag changed: framing not ok, no flags disclosed',
      fails,
      m(framed, (x) => (x.receipt.framing.persona = 0)),
    ),
    await vector('message form with a tool call and a disclosed request: verdict.message, receipt.request', ok, toolCall),
    await vector(
      'message form: the disclosed request swapped fails the question',
      fails,
      m(toolCall, (x) => (x.request = { tools: [] })),
    ),
    await vector(
      'message form: the disclosed request removed fails the question',
      fails,
      m(toolCall, (x) => delete x.request),
    ),
    await vector(
      'message form: answer_form removed from the signed receipt fails',
      fails,
      m(toolCall, (x) => delete x.receipt.answer_form),
    ),
    await vector(
      'message form: the same message with other key order is not the signed text',
      fails,
      m(toolCall, (x) => (x.answer = JSON.stringify({ tool_calls: JSON.parse(x.answer).tool_calls, finish_reason: 'tool_calls' }))),
    ),
    await vector('excerpt in code points (astral character counts as one)', ok, {
      ...clone(plain),
      excerpt: { start: 30, end: 31, quote: '🗼' },
    }),
    await vector('excerpt using UTF-16 offsets fails', fails, { ...clone(plain), excerpt: { start: 30, end: 32, quote: '🗼' } }),
    await vector('excerpt empty slice fails', fails, { ...clone(plain), excerpt: { start: 3, end: 3, quote: '' } }),
    await vector('excerpt quote not in the answer fails', fails, { ...clone(plain), excerpt: { start: 0, end: 3, quote: 'Big' } }),
    await vector('bridge: ML-DSA-87 primary + Falcon-1024 co-signature, keys pinned', { ...ok, keyRecognized: true }, bridged, {
      trustedBridgeKeys: K.trustedBridgeKeys,
    }),
    await vector(
      'bridge by model-plane keys nobody pinned: verifies, keyRecognized false, origin still from the receipt alone',
      { ...ok, keyRecognized: false },
      bridged,
    ),
    await vector(
      'bridge: co-signature altered fails the bundle',
      fails,
      m(bridged, (x) => (x.attestation.cosign.sig = flip(x.attestation.cosign.sig, 40))),
    ),
    await vector(
      'bridge only, no receipt: passes on the bridge layer, not recognised',
      okUnpinned,
      m(bridged, (x) => (delete x.receipt, delete x.receiptKey)),
    ),
    await vector(
      'bridge payload for another answer: both checks false',
      fails,
      m(bridged, (x) => (x.answer = 'Other')),
    ),
    await vector('SLH-DSA-SHA2-256f diversity signature verifies, key pinned', { ...ok, keyRecognized: true }, diverse, {
      trustedKeys: [...pinned, publishedKey(K.slh.publicKey, 'svc-provenance-v1', 'SLH-DSA-SHA2-256f')],
    }),
    await vector(
      'SLH-DSA-SHA2-256f diversity signature by the key the bundle carries, not pinned: verifies, keyRecognized false',
      { ...ok, keyRecognized: false },
      diverse,
    ),
    await vector(
      'SLH diversity signature altered fails the receipt layer',
      fails,
      m(diverse, (x) => (x.receipt.slh.sig = flip(x.receipt.slh.sig, 200))),
    ),
    await vector('no layer at all does not pass', fails, { kind: 'svc-proof', answer: 'x' }),
    await vector(
      'a deployment named acme verifies its own kind and contexts',
      ok,
      issueProof(base, { receipt: K.answer }, { service: 'acme' }),
      {
        service: 'acme',
        trustedKeys: [toReceiptKey(K.answer, namesFor('acme').contexts.answer)],
      },
    ),
    await vector('an answer holding U+FFFD verifies', ok, replacement),
    await vector(
      'the same answer with U+FFFD replaced by a lone surrogate fails (text without an exact UTF-8 form never hashes)',
      fails,
      m(replacement, (x) => (x.answer = x.answer.replace('\uFFFD', '\uD800'))),
    ),
    await vector(
      'a bound prompt with U+FFFD replaced by a lone surrogate fails',
      fails,
      m(replacement, (x) => (x.prompt = x.prompt.replace('\uFFFD', '\uDC00'))),
    ),
    await vector('enveloped (JWS and COSE, ML-DSA-87 and Ed25519), checked: passes, each envelope reported', ok, enveloped, {
      checkEnvelopes: true,
    }),
    await vector('enveloped, the Ed25519 envelope key pinned: every signature keyRecognized', ok, enveloped, {
      checkEnvelopes: true,
      trustedEnvelopeKeys: envelopeKey,
    }),
    await vector(
      "enveloped by a stranger's Ed25519 key the bundle names: integrity holds, those signatures keyRecognized false",
      ok,
      strangerEnveloped,
      { checkEnvelopes: true, trustedEnvelopeKeys: envelopeKey },
    ),
    await vector('enveloped, no envelope checker: passes, envelopes reported not checked', ok, enveloped),
    await vector(
      "enveloped, the JWS's Ed25519 signature replaced by the ML-DSA-87 one: fails (V5)",
      fails,
      m(enveloped, (x) => (x.receipt.envelopes.jws.signatures[1].signature = x.receipt.envelopes.jws.signatures[0].signature)),
      { checkEnvelopes: true },
    ),
    await vector(
      "enveloped, a COSE envelope of another answer's receipt: fails (payload_mismatch)",
      fails,
      m(
        enveloped,
        (x) =>
          (x.receipt.envelopes.cose[0] = issueProof(
            { ...base, answer: 'Another.' },
            { receipt: K.answer, envelopes: envelopeMaker({ formats: ['cose'] }) },
          ).receipt.envelopes.cose[0]),
      ),
      { checkEnvelopes: true },
    ),
    await vector(
      'enveloped, the Ed25519 key removed from the key object: its signatures cannot be checked, fails',
      fails,
      m(enveloped, (x) => delete x.receiptKey.ed25519_public_key_hex),
      { checkEnvelopes: true },
    ),
  ],
);

const turn = (a) => issueProof({ ...base, answer: a }, { receipt: K.answer });
write('transcript.json', 'TranscriptBundle (V2): every turn verifies as a ProofBundle; at most 200 turns', [
  await vector('three turns, all verify', ok, issueTranscript([turn('one'), turn('two'), turn('three')], { title: 'chat' })),
  await vector(
    'a turn with a question no receipt binds: passes, and the transcript reports promptUnverified (V6)',
    { ...ok, promptUnverified: true },
    issueTranscript([turn('one'), legacy], { title: 'chat' }),
  ),
  await vector(
    'one altered turn fails the transcript',
    fails,
    m(issueTranscript([turn('one'), turn('two')]), (x) => (x.turns[1].answer = 'TWO')),
  ),
  await vector('no turns does not pass', fails, { kind: 'svc-transcript', turns: [] }),
  await vector(
    'a turn naming another kind fails',
    fails,
    m(issueTranscript([turn('one')]), (x) => (x.turns[0].kind = 'svc-autopilot-run')),
  ),
  await vector('201 turns: 422', refused(422, 'too_many_turns'), {
    kind: 'svc-transcript',
    turns: Array.from({ length: 201 }, () => ({})),
  }),
]);

const run = {
  id: 'run-42',
  goal: 'Draft a release note',
  status: 'done',
  budgetCredits: 10,
  spentCredits: 7,
  maxSteps: 5,
  summary: 'ok',
  stopReason: 'goal_met',
  steps: [
    { i: 0, action: 'collect', output_sha256: 'ab'.repeat(32), verify: 'schema', credits: 2 },
    { i: 1, action: 'write', output_sha256: 'cd'.repeat(32), verify: 'human', credits: 5 },
  ],
};
const runB = issueRun(run, { model: 'autopilot-v1', ts: 1_767_225_600, created: 1_767_225_602 }, { receipt: K.autopilot });
write('run.json', 'RunProofBundle (V3): the whole run under the autopilot context, budget accounting', [
  await vector('run verifies', ok, runB),
  await vector(
    'step method changed: hash fails',
    fails,
    m(runB, (x) => (x.run.steps[1].verify = 'none')),
  ),
  await vector(
    'signed but overspent budget fails',
    fails,
    issueRun({ ...run, budgetCredits: 6 }, { model: 'autopilot-v1', ts: 1_767_225_600 }, { receipt: K.autopilot }),
  ),
  await vector('run receipt presented as an answer fails', fails, { ...clone(plain), receipt: runB.receipt, receiptKey: runB.receiptKey }),
  await vector('answer receipt presented as a run fails', fails, { ...clone(runB), receipt: plain.receipt, receiptKey: plain.receiptKey }),
]);

const conversations = [
  {
    id: 'c1',
    title: 'Trip',
    messages: [
      { role: 'user', content: 'Paris?' },
      { role: 'assistant', content: 'Oui ✓', ts: 1_767_225_000 },
    ],
  },
  { id: 'c2', messages: [{ role: 'user', content: 'Thanks' }] },
];
const exp = issueExport(
  conversations,
  { model: 'export-v1', ts: 1_767_225_600, created: 1_767_225_603, exported: '2026-01-01T00:00:00Z' },
  { receipt: K.export },
);
write('export.json', 'ExportArchive: manifest, payload hash and counts under the pinned export context', [
  await vector('export verifies', ok, exp),
  await vector(
    'proof.context is display only',
    ok,
    m(exp, (x) => (x.proof.context = 'anything')),
  ),
  await vector(
    'message content changed: payload fails',
    fails,
    m(exp, (x) => (x.conversations[0].messages[0].content = 'Rome?')),
  ),
  await vector(
    'top-level count wrong: counts fail',
    fails,
    m(exp, (x) => (x.count = 3)),
  ),
  await vector(
    'top-level signed_manifest claiming other counts: not the signed manifest, fails',
    fails,
    m(exp, (x) => (x.signed_manifest = x.signed_manifest.replace('"conversations":2', '"conversations":9'))),
  ),
  await vector(
    'top-level service naming another deployment: fails',
    fails,
    m(exp, (x) => (x.service = 'acme')),
  ),
  await vector(
    'exported is display only (unsigned, like proof.context)',
    ok,
    m(exp, (x) => (x.exported = '1999-01-01T00:00:00Z')),
  ),
  await vector(
    'non-canonical manifest spelling fails',
    fails,
    m(exp, (x) => (x.proof.manifest = x.proof.manifest.replace(':', ': '))),
  ),
]);

const tree = new MemoryTree();
for (let i = 0; i < 12; i++) tree.appendData(new Uint8Array(32).fill(i + 1));
const head = (size, timestamp, log = 'svc-ledger') =>
  signTreeHead({ log, tree_size: size, root_hash: toHex(treeRoot(tree, size)), timestamp }, K.sth);
const h5 = head(5, 1_767_225_600_000);
const h12 = head(12, 1_767_225_700_000);
write('sth.json', 'SthBundle (V10): bare signed tree heads; a ledger wrapper is refused', [
  await vector('bare signed tree head verifies', ok, h12),
  await vector(
    'tree size in the body changed fails',
    fails,
    m(h12, (x) => (x.signed = x.signed.replace('"tree_size":12', '"tree_size":13'))),
  ),
  await vector(
    'receipt ts does not restate the body timestamp',
    fails,
    m(h12, (x) => (x.receipt.ts += 1)),
  ),
  await vector('ledger response wrapping signed_tree_head: 422', refused(422, 'sth_wrapper'), {
    enabled: true,
    log: 'svc-ledger',
    tree_size: 12,
    signed_tree_head: h12,
  }),
  await vector('an answer receipt presented as a tree head fails', fails, {
    signed: h12.signed,
    receipt: plain.receipt,
    key: plain.receiptKey,
  }),
]);

const cb = (a, b, proof) =>
  issueConsistency(a, b, proof ?? consistencyProof(tree, JSON.parse(a.signed).tree_size, JSON.parse(b.signed).tree_size));
write('consistency.json', 'ConsistencyBundle (V9): genuine heads, prefix proof, timestamp order', [
  await vector('5 -> 12 verifies', ok, cb(h5, h12)),
  await vector('sth_withheld beside the bundle changes nothing', ok, { ...cb(h5, h12), sth_withheld: 'rollback' }),
  await vector('old head signed after the new one: timestampOrderOk false', fails, cb(head(5, 1_767_225_800_000), h12)),
  await vector(
    'proof node altered fails',
    fails,
    m(cb(h5, h12), (x) => (x.proof[0] = flip(x.proof[0], 0))),
  ),
  await vector('heads swapped fails', fails, cb(h12, h5, consistencyProof(tree, 5, 12))),
  await vector('different logs fail', fails, cb(h5, head(12, 1_767_225_700_000, 'other-log'))),
  await vector('size 0 is never a valid first size', fails, cb(head(0, 1_767_225_500_000), h12, [])),
]);

const rec = buildRecord(bound, { trustedKeys: pinned, generated: 1_767_225_700, org: 'Example Org' });
const recRun = buildRecord(runB, { trustedKeys: pinned, generated: 1_767_225_700 });
write('record.json', 'AI Provenance Records (V4, V8): attested recomputed from the proof and compared', [
  await vector('record verifies unchanged', ok, rec),
  await vector('run record verifies unchanged', ok, recRun),
  // wire-format s.11: the table has editions; a record made before the Code of Practice rows keeps verifying.
  await vector(
    'record carrying the 2025 edition of the table (no Code of Practice rows) verifies unchanged',
    ok,
    m(rec, (x) => (x.ai_act_support = aiActSupport(false, 1))),
  ),
  await vector(
    'record claiming the logged 1.1.3 row for a proof with no log proof: 422',
    refused(422, 'record_mismatch'),
    m(rec, (x) => (x.ai_act_support = [...aiActSupport(false).slice(0, -1), aiActSupport(true).at(-1)])),
  ),
  await vector('signer_recognized true over a key this verifier does not pin: originClaimUnconfirmed', okUnpinned, rec, {
    trustedKeys: [],
  }),
  await vector(
    'over-claim question_attested on a swapped question: 422',
    refused(422, 'record_mismatch'),
    m(
      buildRecord(
        m(bound, (x) => (x.prompt = 'Other?')),
        { trustedKeys: pinned, generated: 1 },
      ),
      (x) => (x.attested.question_attested = true),
    ),
  ),
  await vector(
    'signer_recognized true over a proof that did not verify: 422',
    refused(422, 'record_mismatch'),
    m(
      buildRecord(
        m(bound, (x) => (x.answer = 'x')),
        { trustedKeys: pinned, generated: 1 },
      ),
      (x) => (x.attested.signer_recognized = true),
    ),
  ),
  await vector(
    'disclaimer reworded: 422',
    refused(422, 'record_mismatch'),
    m(rec, (x) => (x.disclaimer = 'Certified.')),
  ),
  await vector(
    "generated, subject and notes are the maker's own words: not compared, listed in record.unattested",
    ok,
    m(rec, (x) => ((x.generated = 1), (x.subject = { organisation: 'Other' }), (x.notes = ['n']))),
  ),
  await vector(
    'a member no record has ("certification") is refused: 422',
    refused(422, 'record_mismatch'),
    m(rec, (x) => (x.certification = 'EU AI Act: conformant')),
  ),
  await vector(
    'verify_instructions pointing elsewhere: 422',
    refused(422, 'record_mismatch'),
    m(rec, (x) => (x.verify_instructions = 'Verify at https://evil.example/verify')),
  ),
]);

/**
 * The JSON text of `doc` with a forged member placed before the genuine one of the same name in the
 * object at `path` (JSON.parse keeps the last, so the genuine document still parses the same).
 */
function duplicated(doc, path, name, forged) {
  const copy = clone(doc);
  let o = copy;
  for (const k of path) o = o[k];
  const marker = '@@duplicate@@';
  const parent = path.length ? path.slice(0, -1).reduce((x, k) => x[k], copy) : null;
  const inner = `{${JSON.stringify(name)}:${JSON.stringify(forged)},${JSON.stringify(o).slice(1)}`;
  if (!parent) return inner;
  parent[path[path.length - 1]] = marker;
  return JSON.stringify(copy).replace(JSON.stringify(marker), inner);
}
const tr = issueTranscript([turn('one'), turn('two')], { title: 'chat' });

write('errors.json', 'Typed refusals: 400 invalid JSON or I-JSON, 413 too large, 422 not a recognised bundle', [
  await vector('invalid JSON', refused(400, 'invalid_json'), undefined, { inputText: '{"kind":"svc-proof",' }),
  // I-JSON (RFC 7493): a member name repeated in one object is refused, wherever it is, so no
  // reader that keeps the first of two names sees a forgery beside a verifying document.
  await vector('repeated member name: answer (first of two forged)', refused(400, 'invalid_json'), undefined, {
    inputText: duplicated(bound, [], 'answer', 'The Eiffel Tower is in Rome.'),
  }),
  await vector('repeated member name: receipt.model', refused(400, 'invalid_json'), undefined, {
    inputText: duplicated(bound, ['receipt'], 'model', 'gpt-forged'),
  }),
  await vector('repeated member name: run goal', refused(400, 'invalid_json'), undefined, {
    inputText: duplicated(runB, ['run'], 'goal', 'Delete the database'),
  }),
  await vector('repeated member name: an export message content', refused(400, 'invalid_json'), undefined, {
    inputText: duplicated(exp, ['conversations', 0, 'messages', 0], 'content', 'Rome?'),
  }),
  await vector('repeated member name: transcript turns', refused(400, 'invalid_json'), undefined, {
    inputText: duplicated(tr, [], 'turns', []),
  }),
  await vector('repeated member name: a record attested field', refused(400, 'invalid_json'), undefined, {
    inputText: duplicated(rec, ['attested'], 'signer_recognized', false),
  }),
  await vector('repeated member name, spelled with an escape (\\u0061nswer)', refused(400, 'invalid_json'), undefined, {
    inputText: duplicated(bound, [], 'answer', 'forged').replace('{"answer":', '{"\\u0061nswer":'),
  }),
  // I-JSON numbers: a literal no double holds exactly reads as one value here and another in a
  // parser with exact integers, while the signature covers the double's canonical form.
  await vector('a number no double holds exactly: run maxSteps 9007199254740993', refused(400, 'invalid_json'), undefined, {
    inputText: JSON.stringify(runB).replace('"maxSteps":5', '"maxSteps":9007199254740993'),
  }),
  await vector('a number no double holds exactly: credits 1.0000000000000001', refused(400, 'invalid_json'), undefined, {
    inputText: JSON.stringify(runB).replace('"credits":2', '"credits":1.0000000000000001'),
  }),
  await vector('the same name in two different objects is not a repeat', ok, undefined, {
    inputText: JSON.stringify(bound),
  }),
  await vector('JSON array', refused(422, 'unknown_kind'), []),
  await vector('unknown kind', refused(422, 'unknown_kind'), { kind: 'svc-unknown' }),
  await vector('object without kind', refused(422, 'unknown_kind'), { answer: 'x' }),
]);
