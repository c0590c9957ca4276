// What the page shows beside a verdict: the content the verdict is about, kind by kind, and each
// check in words that are true for the case shown. The document is only displayed here; every
// judgement comes from the core's verdict.
import { parseTlogProof } from '@svc/core/tlog';
import { copyable, el, facts, revealed, row, section, when, whenMs } from './dom.mjs';
import { headsPicture, inclusionPicture } from './pictures.mjs';

const isObj = (o) => typeof o === 'object' && o !== null && !Array.isArray(o);
const str = (v) => (typeof v === 'string' ? v : null);
const okText = (ok, good, bad) => (ok ? good : bad);

/** The kind without its service prefix: `svc-proof` -> `proof`. */
export function shortKind(kind, service) {
  return kind.startsWith(`${service}-`) ? kind.slice(service.length + 1) : kind;
}

/** The answer, with a pinned quote marked in place, or said to be absent from it. */
function answerView(answer, excerpt, excerptVerdict) {
  const box = el('blockquote', { class: 'answer', id: 'answer-text' });
  if (typeof answer !== 'string') {
    box.textContent = '(no answer text)';
    return box;
  }
  let hidden = 0;
  const show = (t) => {
    const r = revealed(t);
    hidden += r.count;
    return r.nodes;
  };
  if (excerptVerdict?.ok && isObj(excerpt)) {
    const cps = Array.from(answer);
    box.append(
      ...show(cps.slice(0, excerpt.start).join('')),
      el('mark', { id: 'quote' }, ...show(cps.slice(excerpt.start, excerpt.end).join(''))),
      ...show(cps.slice(excerpt.end).join('')),
    );
  } else box.append(...show(answer));
  return hidden > 0 ? [hiddenNotice(hidden, 'answer'), box] : box;
}

/** Said above any text whose invisible or direction-changing characters are shown as code points. */
function hiddenNotice(n, what) {
  return el(
    'p',
    { class: 'info hidden-chars', id: `${what.replace(/\s+/g, '-')}-hidden-chars` },
    `The ${what} contains ${n} invisible or direction-changing character${n === 1 ? '' : 's'}, shown as ⟨U+…⟩ where ${n === 1 ? 'it stands' : 'they stand'}: they would otherwise hide or reorder what was signed.`,
  );
}

/** Signed text as it was signed: format characters shown as code points, with a notice when any. */
function signedText(tag, attrs, prefix, text, what) {
  const r = revealed(text);
  const node = el(tag, attrs, prefix, ...r.nodes);
  return r.count > 0 ? [hiddenNotice(r.count, what), node] : node;
}

function questionView(doc, r) {
  const q = str(doc.prompt);
  if (q === null) return null;
  const binding = r?.questionBinding;
  const state =
    binding && binding !== 'none'
      ? `attested: covered by the signature (${binding})`
      : r?.promptBound
        ? 'does NOT match the question the signature covers'
        : 'not covered by any signature: shown as the document carries it, not attested';
  return el(
    'div',
    { class: 'question' },
    el('p', { class: 'label' }, `Question (${state})`),
    signedText('blockquote', { id: 'question-text' }, '', q, 'question'),
  );
}

/** Receipt facts: model, time, governance, council, framing, key. */
function receiptFacts(receipt, verdict, kindLabel) {
  if (!isObj(receipt)) return null;
  const framing = isObj(receipt.framing)
    ? Object.entries(receipt.framing)
        .map(([k, v]) => `${k}: ${JSON.stringify(v)}`)
        .join(', ')
    : null;
  return facts([
    ['Model', str(receipt.model)],
    [`${kindLabel} signed at`, when(receipt.ts)],
    ['Governance flag', receipt.governance_flag !== undefined ? String(receipt.governance_flag) : null],
    ['Council', verdict ? (verdict.councilGrounded ? 'grounded by the council' : 'single-model fallback (signed as such)') : null],
    ['Framing disclosure', framing],
    ['Algorithm', str(receipt.algo)],
    ['Signing key id', typeof receipt.key_id === 'string' ? copyable(receipt.key_id, 'signing key id') : null],
  ]);
}

/** The checks of a receipt layer, named for what the receipt signs in this kind. */
function receiptRows(r, signs) {
  if (!r) return [];
  if (!r.present) return [row('Receipt', false, 'absent: nothing here is signed')];
  const out = [
    row(
      `${signs} hash`,
      r.answerHashOk,
      okText(
        r.answerHashOk,
        `matches the hash the signature covers`,
        `does NOT match the signed hash: the ${signs.toLowerCase()} was changed`,
      ),
    ),
    row('Receipt signature (ML-DSA-87)', r.sigOk, okText(r.sigOk, 'valid', 'INVALID: it does not verify against the embedded key')),
  ];
  if (r.diversity) out.push(row('SLH-DSA diversity signature', r.diversity.ok, okText(r.diversity.ok, 'valid', 'INVALID')));
  if (r.framing) out.push(row('Framing signature', r.framing.ok, okText(r.framing.ok, 'valid', 'INVALID')));
  if (r.envelopes) out.push(...envelopeRows(r.envelopes));
  return out;
}

/** One row per envelope (JWS, each COSE_Sign1): its signatures' algorithms, and why one failed. */
function envelopeRows(e) {
  const said = (c) =>
    c.ok
      ? `valid: ${c.signatures.map((s) => s.alg).join(' and ')}, over the same signed receipt`
      : `INVALID (${c.error ?? 'malformed'}): ${c.signatures.map((s) => `${s.alg} ${s.ok ? 'valid' : (s.error ?? 'failed')}`).join(', ') || 'unreadable'}`;
  const rows = [];
  if (e.jws) rows.push(row('JWS envelope (RFC 9964)', e.jws.ok, said(e.jws)));
  for (const [i, c] of (e.cose ?? []).entries()) rows.push(row(`COSE_Sign1 envelope ${i + 1} (RFC 9964)`, c.ok, said(c)));
  if (!e.checked) rows.push(row('Envelopes', null, 'carried, not checked'));
  else if (!e.jws && !e.cose) rows.push(row('Envelopes', false, 'INVALID: not a JWS or COSE envelope'));
  return rows;
}

function proofContent(doc, v) {
  const parts = [answerView(doc.answer, doc.excerpt, v.excerpt)];
  // Text the signature does not cover is the bundle's claim, never "what was signed".
  if (v.receipt && v.receipt.answerHashOk === false)
    parts.unshift(
      el(
        'p',
        { class: 'bad', id: 'claimed-not-signed' },
        'Claimed, not signed: this text does not match the signed hash; it was changed after signing.',
      ),
    );
  if (v.excerpt && !v.excerpt.ok)
    parts.push(
      el('p', { class: 'bad', id: 'quote-missing' }, `Pinned quote not found in the signed answer: “${str(doc.excerpt?.quote) ?? ''}”`),
    );
  parts.push(questionView(doc, v.receipt), receiptFacts(doc.receipt, v.receipt, 'Answer'));
  return parts;
}

function logPicture(doc, v) {
  if (!v.log || typeof doc.tlogProof !== 'string') return null;
  try {
    const p = parseTlogProof(doc.tlogProof);
    const hex = p.proof.map((h) => Array.from(h, (b) => b.toString(16).padStart(2, '0')).join(''));
    return section(
      'Where the answer is logged',
      'logged',
      facts([
        [v.log.policyChecked && v.log.logRecognized ? 'Log' : 'Log (named by the checkpoint; its signature not checked)', p.parsed.origin],
        ['Leaf index', String(p.index)],
        ['Tree size', String(p.parsed.size)],
        ['Path', v.log.ok ? 'leads from the answer to the checkpoint root' : 'does NOT lead to the checkpoint root'],
      ]),
      inclusionPicture(p.index, p.parsed.size, hex, 'checkpoint root'),
    );
  } catch {
    return null;
  }
}

function proofRows(v, signs = 'Answer') {
  const out = receiptRows(v.receipt, signs);
  const r = v.receipt;
  if (r?.present && !r.councilGrounded) out.push(row('Council', null, 'single-model fallback (signed as such)'));
  if (r && r.questionBinding !== undefined)
    out.push(
      r.questionBinding === 'none'
        ? row(
            'Question',
            r.promptBound ? false : null,
            r.promptBound ? 'does NOT match the signed question' : 'shown above, not covered by any signature',
          )
        : row('Question', true, `attested (${r.questionBinding})`),
    );
  if (v.excerpt)
    out.push(
      row(
        'Pinned quote',
        v.excerpt.ok,
        okText(v.excerpt.ok, 'an exact slice of the signed answer (marked above)', 'NOT in the signed answer'),
      ),
    );
  if (v.bridge) {
    out.push(row('Model-plane signature (ML-DSA-87)', v.bridge.primaryOk, okText(v.bridge.primaryOk, 'valid', 'INVALID')));
    if (v.bridge.cosignPresent)
      out.push(row('Model-plane co-signature (Falcon-1024)', v.bridge.secondaryOk, okText(v.bridge.secondaryOk, 'valid', 'INVALID')));
    if (v.bridge.primaryOk && v.bridge.keyRecognized === false)
      out.push(row('Model-plane key', null, 'not one this page pins: not evidence of origin'));
  }
  if (v.log) {
    // The path alone proves inclusion under a checkpoint anyone could sign: which log it is, only
    // the log's keys say. Without them no log is named as where the answer is logged.
    const judged = v.log.policyChecked && v.log.logRecognized;
    out.push(
      row(
        'Transparency log',
        v.log.ok ? (judged ? true : null) : false,
        !v.log.ok
          ? 'the inclusion proof does NOT verify'
          : judged
            ? `included at index ${v.log.index} of ${v.log.treeSize} in ${v.log.origin}, under a checkpoint signed by that log's key${v.log.quorumMet ? ' and cosigned by enough of its witnesses' : ''}`
            : `the path leads to the checkpoint the proof carries (index ${v.log.index} of ${v.log.treeSize}); checkpoint signature not checked: the log it names (${v.log.origin ?? 'none'}) is a claim, not attested`,
      ),
    );
  }
  return out;
}

function transcriptContent(doc, v) {
  const turns = Array.isArray(doc.turns) ? doc.turns : [];
  const firstBad = v.turns.find((t) => !t.verdict.overallOk);
  const list = el('ol', { class: 'turns', id: 'turns' });
  v.turns.forEach((t) => {
    const turn = isObj(turns[t.index]) ? turns[t.index] : {};
    const ok = t.verdict.overallOk;
    const why = ok
      ? 'verifies'
      : !t.verdict.receipt.present
        ? 'no receipt'
        : !t.verdict.receipt.answerHashOk
          ? 'its answer was changed after signing'
          : !t.verdict.receipt.sigOk
            ? 'its signature does not verify'
            : 'a layer fails';
    list.append(
      el(
        'li',
        { id: `turn-${t.index}`, class: ok ? 'turn ok' : 'turn bad' },
        el('p', { class: 'label' }, `Turn ${t.index + 1}: ${ok ? '✓' : '✗'} ${why}`),
        str(turn.prompt) !== null ? signedText('p', { class: 'q' }, 'Q: ', turn.prompt, `question of turn ${t.index + 1}`) : null,
        signedText('p', { class: 'a' }, 'A: ', str(turn.answer) ?? '(none)', `answer of turn ${t.index + 1}`),
      ),
    );
  });
  return [
    facts([
      // The title is no turn's content: no signature covers it.
      ['Title (not signed)', str(doc.title)],
      ['Turns', `${v.turns.filter((t) => t.verdict.overallOk).length} of ${v.turns.length} verify`],
    ]),
    firstBad
      ? el(
          'p',
          {},
          el('a', { href: `#turn-${firstBad.index}`, id: 'first-failure' }, `Jump to the first failing turn (turn ${firstBad.index + 1})`),
        )
      : null,
    list,
  ];
}

function runContent(doc, v) {
  const run = isObj(doc.run) ? doc.run : {};
  const steps = Array.isArray(run.steps) ? run.steps : [];
  const table = el(
    'table',
    { id: 'steps' },
    el('caption', {}, 'Steps'),
    el(
      'tr',
      {},
      el('th', { scope: 'col' }, '#'),
      el('th', { scope: 'col' }, 'Method'),
      el('th', { scope: 'col' }, 'Output hash'),
      el('th', { scope: 'col' }, 'Credits'),
    ),
  );
  for (const s of steps.slice(0, 500)) {
    const st = isObj(s) ? s : {};
    table.append(
      el(
        'tr',
        {},
        el('td', {}, String(st.i ?? '')),
        el('td', {}, `${st.action ?? ''}${st.verify ? ` (checked: ${st.verify})` : ''}`),
        el('td', {}, el('code', {}, String(st.output_sha256 ?? ''))),
        el('td', {}, String(st.credits ?? '')),
      ),
    );
  }
  return [
    facts([
      ['Goal', str(run.goal)],
      ['Status', str(run.status)],
      ['Stop reason', str(run.stopReason)],
      [
        'Budget',
        run.budgetCredits !== undefined
          ? `${run.spentCredits ?? '?'} of ${run.budgetCredits} credits spent (${v.run.budgetOk ? 'adds up' : 'does NOT add up'})`
          : null,
      ],
      ['Steps', `${v.run.steps} (at most ${run.maxSteps ?? '?'})`],
    ]),
    table,
    receiptFacts(doc.receipt, v.receipt, 'Run'),
  ];
}

function exportContent(doc, v) {
  const convs = Array.isArray(doc.conversations) ? doc.conversations : [];
  const messages = convs.reduce((n, c) => n + (Array.isArray(c?.messages) ? c.messages.length : 0), 0);
  return [
    facts([
      ['Conversations', String(convs.length)],
      ['Messages', String(messages)],
      ['Exported (display only, not signed)', str(doc.exported)],
      ['Counts', v.export.countsOk ? 'match the signed manifest' : 'do NOT match the signed manifest'],
    ]),
    el(
      'ul',
      { id: 'conversations' },
      ...convs
        .slice(0, 200)
        .map((c) =>
          el('li', {}, `${str(c?.title) ?? str(c?.id) ?? '(untitled)'}: ${Array.isArray(c?.messages) ? c.messages.length : 0} messages`),
        ),
    ),
    receiptFacts(doc.proof?.receipt, v.receipt, 'Export'),
  ];
}

function headFacts(h) {
  return facts([
    ['Log', h.log ?? null],
    ['Size', h.treeSize !== null ? `${h.treeSize} leaves` : null],
    ['Root hash', h.rootHash ? copyable(h.rootHash, 'root hash') : null],
    // A tree head's timestamp is in milliseconds (RFC 6962), a receipt's ts in seconds.
    ['Signed at', whenMs(h.timestamp)],
  ]);
}

function consistencyContent(v) {
  return [
    el('h3', {}, 'Older head'),
    headFacts({ ...v.consistency.old, log: v.old.sth.log }),
    el('h3', {}, 'Newer head'),
    headFacts({ ...v.consistency.new, log: v.new.sth.log }),
    headsPicture(v.consistency.old, v.consistency.new, v.timestampOrderOk),
  ];
}

const RECORD_FIELDS = {
  signed: 'the embedded proof carries a signature that verifies',
  signer_recognized: 'the signature is by a key the service that made this record pins (not this page: see Origin)',
  algorithms: 'the signature algorithms that verified, with pinned keys',
  council_grounded: 'the signed receipt says the council grounded the answer',
  signed_at: 'the signing time in the signed receipt',
  question_attested: 'a signature covers the question',
  question_binding: 'how the question is bound',
  quote_attested: 'a pinned quote is an exact slice of the signed answer',
  receipt_key_id: 'the receipt key id',
  answer_sha256: 'the hash of the signed answer',
  logged: 'the answer is in a transparency log, with its inclusion proof',
  governance_flag: 'the governance flag in the signed receipt',
};

function recordContent(doc, res) {
  const attested = isObj(doc.attested) ? doc.attested : {};
  const t = el(
    'table',
    { id: 'attested' },
    el('caption', {}, 'Attested fields (recomputed from the embedded proof; equal, or the record would not verify)'),
    el('tr', {}, el('th', { scope: 'col' }, 'Field'), el('th', { scope: 'col' }, 'Value'), el('th', { scope: 'col' }, 'What it means')),
  );
  for (const [k, val] of Object.entries(attested))
    t.append(
      el(
        'tr',
        {},
        el('td', {}, el('code', {}, k)),
        el(
          'td',
          {},
          typeof val === 'string' && val.length > 40 ? copyable(val, k) : k === 'signed_at' && when(val) ? when(val) : JSON.stringify(val),
        ),
        el('td', {}, RECORD_FIELDS[k] ?? ''),
      ),
    );
  const act = el(
    'table',
    { id: 'ai-act' },
    el('caption', {}, 'AI Act support (evidence, never a declaration of conformity)'),
    el('tr', {}, el('th', { scope: 'col' }, 'Provision'), el('th', { scope: 'col' }, 'Supports'), el('th', { scope: 'col' }, 'Limits')),
  );
  for (const a of Array.isArray(doc.ai_act_support) ? doc.ai_act_support : [])
    if (isObj(a))
      act.append(
        el(
          'tr',
          {},
          el('td', {}, `${a.article ?? ''}: ${a.title ?? ''}`),
          el('td', {}, str(a.supports) ?? ''),
          el('td', {}, str(a.limits) ?? ''),
        ),
      );
  const subject = isObj(doc.subject) ? doc.subject : {};
  const own = res.record?.unattested ?? [];
  return [
    facts([
      ['Schema', `${str(doc.schema) ?? ''} v${doc.schema_version ?? '?'}`],
      ['Organisation (the maker\u2019s own words, not attested)', str(subject.organisation)],
      ['Generated (not attested)', when(doc.generated)],
      ['Summary', res.record?.summaryOk ? 'matches its embedded proof' : null],
      ['Origin claim', res.record?.originClaimUnconfirmed ? 'NOT confirmed by the keys this page pins' : null],
    ]),
    t,
    act,
    Array.isArray(doc.notes) && doc.notes.length
      ? el(
          'div',
          {},
          el('p', { class: 'label' }, 'Notes (not attested)'),
          el('ul', { id: 'notes' }, ...doc.notes.map((n) => el('li', {}, String(n)))),
        )
      : null,
    own.length ? el('p', { class: 'info' }, `Its ${own.join(', ')} are the maker's own words: shown, not attested.`) : null,
    str(doc.disclaimer) ? el('p', { class: 'note', id: 'record-disclaimer' }, doc.disclaimer) : null,
  ];
}

/** The content panel and the checks for a verified response `res` of document `doc`. */
export function describe(doc, res) {
  const v = res.verdict;
  const kind = shortKind(res.kind, res.service);
  const panels = [];
  let rows = [];
  if (kind === 'ai-provenance-record') {
    panels.push(section('The record', 'record', ...recordContent(doc, res)));
    const inner = isObj(doc.proof) ? doc.proof : isObj(doc.run) ? doc : {};
    if (v.run) {
      panels.push(section('The embedded run', 'content', ...runContent(inner, v)));
      rows = [
        ...receiptRows(v.receipt, 'Run'),
        row('Run', v.run.hashOk && v.run.budgetOk, `hash ${v.run.hashOk ? 'ok' : 'FAILED'}, budget ${v.run.budgetOk ? 'ok' : 'FAILED'}`),
      ];
    } else {
      panels.push(section('The embedded proof', 'content', ...proofContent(inner, v)));
      rows = proofRows(v);
      panels.push(logPicture(inner, v));
    }
  } else if (kind === 'proof') {
    panels.push(
      section(v.overallOk ? 'What was signed' : 'What the bundle claims (it does not verify)', 'content', ...proofContent(doc, v)),
    );
    rows = proofRows(v);
    panels.push(logPicture(doc, v));
  } else if (kind === 'transcript') {
    panels.push(section('The conversation', 'content', ...transcriptContent(doc, v)));
    rows = [row('Turns', v.overallOk, `${v.turns.filter((t) => t.verdict.overallOk).length} of ${v.turns.length} verify`)];
    if (v.promptUnverified) rows.push(row('Questions', null, 'at least one turn shows a question no signature covers'));
  } else if (kind === 'autopilot-run') {
    panels.push(section('The run', 'content', ...runContent(doc, v)));
    rows = [
      ...receiptRows(v.receipt, 'Run'),
      row(
        'Run',
        v.run.hashOk && v.run.budgetOk,
        `hash ${v.run.hashOk ? 'ok' : 'FAILED'}, ${v.run.steps} steps, budget ${v.run.budgetOk ? 'ok' : 'FAILED'}`,
      ),
    ];
  } else if (kind === 'export') {
    panels.push(section('The export', 'content', ...exportContent(doc, v)));
    rows = [
      ...receiptRows(v.receipt, 'Manifest'),
      row(
        'Export',
        v.export.manifestOk && v.export.payloadOk && v.export.countsOk,
        `manifest ${v.export.manifestOk ? 'ok' : 'FAILED'}, payload ${v.export.payloadOk ? 'ok' : 'FAILED'}, counts ${v.export.countsOk ? 'ok' : 'FAILED'}`,
      ),
    ];
  } else if (kind === 'sth') {
    panels.push(section('The tree head', 'content', headFacts({ ...v.sth, log: v.sth.log })));
    rows = [
      ...receiptRows(v.receipt, 'Tree head'),
      row('Tree head', v.sth.bodyOk, v.sth.bodyOk ? `${v.sth.log} at size ${v.sth.treeSize}` : 'its signed text is not a tree head'),
    ];
  } else if (kind === 'consistency') {
    panels.push(section('The two tree heads', 'content', ...consistencyContent(v)));
    rows = [
      row('Older head', v.old.overallOk, okText(v.old.overallOk, 'signature valid', 'does NOT verify')),
      row('Newer head', v.new.overallOk, okText(v.new.overallOk, 'signature valid', 'does NOT verify')),
      row(
        'Consistency proof',
        v.consistency.proofOk,
        okText(v.consistency.proofOk, 'the older head is a prefix of the newer', 'does NOT verify'),
      ),
    ];
    if (v.timestampOrderOk !== undefined)
      rows.push(
        row(
          'Timestamp order',
          v.timestampOrderOk,
          okText(v.timestampOrderOk, 'the older head was signed first', 'the older head was signed AFTER the newer (rollback)'),
        ),
      );
  }
  return { panels: panels.filter(Boolean), rows };
}

/** The key id the document says signed it (the first receipt's), for the origin sentence. */
export function claimedKeyId(doc, res) {
  const kind = shortKind(res.kind, res.service);
  const r =
    kind === 'ai-provenance-record'
      ? (doc.proof?.receipt ?? doc.receipt)
      : kind === 'export'
        ? doc.proof?.receipt
        : kind === 'transcript'
          ? doc.turns?.[0]?.receipt
          : kind === 'consistency'
            ? doc.new?.receipt
            : doc.receipt;
  return isObj(r) && typeof r.key_id === 'string' ? r.key_id : null;
}
