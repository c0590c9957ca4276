// `svc verify` and `svc record`: offline, with keys pinned from a file or fetched once.
import { isSvcError, type MessageVerdict, parseDocument, verifyBundle, type ReceiptKey, type VerifyResponse } from '@svc/core';
import type { BridgeKey } from '@svc/core/issue';
import { buildRecord } from '@svc/core/record';
import { envelopeChecker } from '@svc/core/envelope';
import { scittChecker } from '@svc/core/scitt';
import { opensslClassical } from '../crypto/classical.js';
import { CliError, baseUrl, fetchBridgeKeys, fetchJson, fetchKeys, loadKeysFile, readInput } from './common.js';
import { asEnvelope, fetchCoseKeys, readBytes, verifyEnvelope } from './envelope.js';
import { isScittStatement, verifyScitt } from './scitt.js';
import { jsonForTerminal } from './io.js';

const mark = (b: boolean | undefined) => (b ? 'ok' : 'FAILED');
/** A signature that verifies by a key nobody pinned proves integrity, never who made it. */
const pinnedNote = (ok: boolean, recognized: boolean) => (ok && !recognized ? ' (by a key not pinned here: not evidence of origin)' : '');

export function summarise(r: VerifyResponse, pinnedCount: number): string {
  // biome-ignore lint/suspicious/noExplicitAny: a summary of whichever kind's verdict this is.
  const v = r.verdict as any;
  const lines: string[] = [];
  lines.push(`Kind: ${r.kind}`);
  lines.push(
    r.verdict.overallOk
      ? 'Integrity: PASS. The embedded signatures verify against the embedded keys; the signed content is unaltered.'
      : 'Integrity: FAIL. This bundle does not verify; do not rely on it.',
  );
  if (pinnedCount === 0)
    lines.push('Origin: not checked. No keys were pinned (use --keys FILE or --keys-url BASE), so nothing says who signed it.');
  else if (r.signerRecognized) lines.push('Origin: RECOGNISED. The signing key is one of the pinned keys of the service.');
  else lines.push('Origin: NOT recognised. The signing key is not one of the pinned keys (or the bundle failed).');
  if ('record' in r)
    lines.push(
      `Record: summary recomputed from the proof and it matches${r.record.originClaimUnconfirmed ? '; its origin claim is unconfirmed by these keys' : ''}.${r.record.unattested ? ` Its ${r.record.unattested.join(', ')} are the maker's own words, not attested.` : ''}`,
    );
  const receipt = v.receipt;
  if (receipt) {
    if (!receipt.present) lines.push('  receipt: absent');
    else {
      lines.push(
        `  receipt: answer hash ${mark(receipt.answerHashOk)}, signature ${mark(receipt.sigOk)}, key ${String(receipt.keyId).slice(0, 16)}`,
      );
      if (!receipt.councilGrounded) lines.push('  council: single-model fallback (signed)');
      if (receipt.diversity)
        lines.push(
          `  SLH-DSA diversity signature: ${mark(receipt.diversity.ok)}${pinnedNote(receipt.diversity.ok, receipt.diversity.keyRecognized)}`,
        );
    }
    if (receipt.questionBinding !== undefined) {
      lines.push(
        receipt.questionBinding === 'none'
          ? `  question: NOT attested${receipt.promptBound ? ' (it does not match what was signed)' : ' (legacy receipt: no signature covers it)'}`
          : `  question: attested (${receipt.questionBinding})`,
      );
    }
  }
  if (receipt?.request)
    lines.push(
      receipt.request.ok
        ? `  request beyond the messages: disclosed and signed (${(receipt.request.members ?? []).join(', ')})`
        : '  request beyond the messages: FAILED (the disclosed request is not what was signed)',
    );
  if (v.message) lines.push(messageLine(v.message));
  if (receipt?.envelopes) lines.push(...envelopeLines(receipt.envelopes));
  if (v.scitt) lines.push(scittLine(v.scitt));
  if (v.log)
    lines.push(
      `  transparency log (tlogProof): inclusion ${mark(v.log.ok)}${v.log.logRecognized === undefined ? '' : v.log.logRecognized ? ', log recognised' : ', log not judged (no policy names it)'}`,
    );
  if (v.excerpt) lines.push(`  excerpt: ${v.excerpt.ok ? 'exact slice of the signed answer' : 'NOT an exact slice of the answer'}`);
  if (v.bridge)
    lines.push(
      `  model-plane attestation: ML-DSA-87 ${mark(v.bridge.primaryOk)}${v.bridge.cosignPresent ? `, Falcon-1024 co-sign ${mark(v.bridge.secondaryOk)}` : ''}${pinnedNote(v.bridge.primaryOk, v.bridge.keyRecognized)}`,
    );
  if (v.turns)
    lines.push(
      `  turns: ${v.turns.filter((t: { verdict: { overallOk: boolean } }) => t.verdict.overallOk).length}/${v.turns.length} verify`,
    );
  if (v.run) lines.push(`  run: hash ${mark(v.run.hashOk)}, ${v.run.steps} steps, budget ${mark(v.run.budgetOk)}`);
  if (v.export)
    lines.push(`  export: manifest ${mark(v.export.manifestOk)}, payload ${mark(v.export.payloadOk)}, counts ${mark(v.export.countsOk)}`);
  if (v.sth) lines.push(`  tree head: ${v.sth.log ?? '?'} size ${v.sth.treeSize ?? '?'} body ${mark(v.sth.bodyOk)}`);
  if (v.consistency)
    lines.push(
      `  consistency: proof ${mark(v.consistency.proofOk)}${v.timestampOrderOk === undefined ? '' : `, timestamps ${mark(v.timestampOrderOk)}`}`,
    );
  lines.push('A passing verdict attests origin and integrity only, never that the content is accurate.');
  return lines.join('\n');
}

/** A message-form answer: why it ended, and the tool calls and refusal it signs. */
function messageLine(m: MessageVerdict): string {
  if (!m.ok) return '  answer form: message, FAILED (the signed answer is not a well-formed message)';
  const calls = (m.toolCalls ?? []).map((c) => `${c.name}(${c.arguments.length > 80 ? `${c.arguments.slice(0, 80)}…` : c.arguments})`);
  return `  answer form: message, finish_reason ${m.finishReason}${m.refusal !== undefined ? ', a refusal' : ''}${calls.length ? `, tool calls: ${calls.join(', ')}` : ''}`;
}

type Sig = { alg: string; ok: boolean; error?: string; keyRecognized?: boolean };
const sigText = (x: Sig) =>
  `${x.alg} ${x.ok ? 'ok' : `FAILED (${x.error ?? 'bad'})`}${x.ok && x.keyRecognized === false ? ' (key not pinned here: integrity, not origin)' : ''}`;

/** Each envelope the receipt carries, each signature named: which one failed, and whose keys. */
function envelopeLines(e: {
  checked: boolean;
  ok?: boolean;
  jws?: { ok: boolean; signatures: Sig[] };
  cose?: { ok: boolean; signatures: Sig[] }[];
}): string[] {
  if (!e.checked) return ['  envelopes: not checked'];
  return [
    `  envelopes: ${mark(e.ok)}`,
    ...(e.jws ? [`    JWS: ${e.jws.signatures.length ? e.jws.signatures.map(sigText).join(', ') : mark(false)}`] : []),
    ...(e.cose ?? []).map((c, i) => `    COSE #${i + 1}: ${c.signatures.length ? c.signatures.map(sigText).join(', ') : mark(c.ok)}`),
  ];
}

/** The SCITT layer: judged, with what its receipts say, or why not. */
function scittLine(sc: {
  checked: boolean;
  ok?: boolean;
  error?: string;
  logRecognized?: boolean;
  receipts?: { ok: boolean; alg?: string; error?: string }[];
}): string {
  if (!sc.checked) return '  SCITT statement: not checked (no log keys: use --keys-url BASE of a server with a ledger)';
  if (!sc.ok)
    return `  SCITT statement: FAILED (${sc.error ?? 'malformed'})${(sc.receipts ?? []).map((r) => `; receipt ${r.alg ?? '?'} ${r.ok ? 'ok' : `FAILED (${r.error})`}`).join('')}`;
  return sc.logRecognized === false
    ? '  SCITT statement: ok, its receipts from a log this server does not know (not judged)'
    : `  SCITT statement: ok, receipts ${(sc.receipts ?? []).map((r) => `${r.alg ?? '?'} ${r.ok ? 'ok' : `set aside (${r.error})`}`).join(', ')}`;
}

/**
 * With --keys-url, what the server itself checks with: its log's receipt keys (SCITT layers) and
 * its Ed25519 envelope key, from the same base. A server without a ledger publishes no log keys:
 * the SCITT layer is then reported unchecked, never passed.
 */
async function serverLayers(opts: { 'keys-url'?: string }) {
  if (!opts['keys-url']) return {};
  const base = baseUrl(opts['keys-url']);
  const pub = await fetchJson(`${base}/api/provenance/pubkey`);
  const ed = (pub.body as { envelope_ed25519?: { public_key_hex?: string } } | undefined)?.envelope_ed25519;
  const keys = await fetchCoseKeys(`${base}/.well-known/scitt-keys`).catch((e: unknown) => {
    // A server without a ledger has no SCITT keys (404): its layer is then unchecked, and said so.
    if (e instanceof CliError && e.message.endsWith('answered 404')) return null;
    throw e;
  });
  return {
    ...(ed?.public_key_hex ? { trustedEnvelopeKeys: [{ algo: 'Ed25519', public_key_hex: ed.public_key_hex }] } : {}),
    ...(keys ? { scitt: scittChecker({ logs: [{ keys }], classical: opensslClassical }) } : {}),
  };
}

async function pinned(opts: { keys?: string; 'keys-url'?: string }): Promise<ReceiptKey[]> {
  if (opts.keys) return loadKeysFile(opts.keys);
  if (opts['keys-url']) return fetchKeys(opts['keys-url']);
  return [];
}

/** With --keys-url, the service's model-plane keys too, so its own attestations count as pinned. */
async function pinnedBridge(opts: { 'keys-url'?: string }): Promise<BridgeKey[]> {
  return opts['keys-url'] ? fetchBridgeKeys(opts['keys-url']) : [];
}

/** Exit 4: it verifies, but the keys the user pinned do not recognise its signer (a CI gate's "not ours"). */
export const EXIT_UNRECOGNISED = 4;

export async function verifyCommand(
  file: string,
  opts: { json?: boolean; keys?: string; 'keys-url'?: string; service?: string; 'allow-unpinned'?: boolean },
  out: (s: string) => void,
): Promise<number> {
  // A bare JWS or COSE_Sign1 (as receipt.envelopes carries them) is checked against a key set.
  const envelope = file === '-' ? null : asEnvelope(readBytes(file));
  if (envelope && 'cose' in envelope && isScittStatement(envelope.cose)) return verifyScitt(envelope.cose, opts, out);
  if (envelope) return verifyEnvelope(envelope, opts, out);
  const text = readInput(file);
  const trustedKeys = await pinned(opts);
  const trustedBridgeKeys = await pinnedBridge(opts);
  const layers = await serverLayers(opts);
  let r: VerifyResponse;
  try {
    r = await verifyBundle(text, {
      trustedKeys,
      trustedBridgeKeys,
      ...layers,
      envelopes: envelopeChecker,
      ...(opts.service ? { service: opts.service } : {}),
    });
  } catch (e) {
    if (isSvcError(e)) throw new CliError(`not verifiable: ${e.message} (${e.code})`, 2);
    throw e;
  }
  out(opts.json ? jsonForTerminal(r) : summarise(r, trustedKeys.length));
  if (!r.verdict.overallOk) return 1;
  return trustedKeys.length > 0 && !r.signerRecognized && !opts['allow-unpinned'] ? EXIT_UNRECOGNISED : 0;
}

export async function recordCommand(
  file: string,
  opts: { org?: string; keys?: string; 'keys-url'?: string; service?: string; 'allow-unpinned'?: boolean },
  out: (s: string) => void,
  note: (s: string) => void = () => {},
): Promise<number> {
  const text = readInput(file);
  const trustedKeys = await pinned(opts);
  const trustedBridgeKeys = await pinnedBridge(opts);
  const layers = await serverLayers(opts);
  // Where trust comes from, said every time: a record made with no keys pinned cannot recognise anyone.
  note(
    trustedKeys.length === 0
      ? 'origin not checked: no keys pinned, so attested.signer_recognized is false; pass --keys-url BASE or --keys FILE'
      : `origin checked against ${trustedKeys.length} pinned key${trustedKeys.length === 1 ? '' : 's'} from ${opts.keys ?? opts['keys-url']}`,
  );
  try {
    const doc = parseDocument(text);
    const rec = buildRecord(doc, {
      trustedBridgeKeys,
      trustedKeys,
      ...layers,
      envelopes: envelopeChecker,
      generated: Math.floor(Date.now() / 1000),
      ...(opts.org !== undefined ? { org: opts.org } : {}),
      ...(opts.service ? { service: opts.service } : {}),
    });
    out(jsonForTerminal(rec));
    if (!rec.attested.signed) return 1;
    return trustedKeys.length > 0 && !rec.attested.signer_recognized && !opts['allow-unpinned'] ? EXIT_UNRECOGNISED : 0;
  } catch (e) {
    if (isSvcError(e)) throw new CliError(`cannot make a record: ${e.message} (${e.code})`, 2);
    throw e;
  }
}
