// The in-browser verifier: the core's verifyBundle, run locally. Nothing leaves the page while
// verifying; the only keys pinned are the ones embedded when the server served the page, or the
// ones pasted by the user.
// V1: the same verifyBundle as the API, run here; nothing is fetched or stored while verifying.
import { verifyBundle, isSvcError } from '@svc/core';

const $ = (id) => document.getElementById(id);
const embedded = JSON.parse(document.getElementById('pinned-keys').textContent || 'null');

function pinnedKeys() {
  const pasted = $('keys').value.trim();
  if (pasted) {
    const doc = JSON.parse(pasted);
    const keys = Array.isArray(doc) ? doc : doc.keys;
    if (!Array.isArray(keys)) throw new Error('pasted keys must be a /api/provenance/pubkey response or an array of keys');
    return keys;
  }
  return embedded && Array.isArray(embedded.keys) ? embedded.keys : [];
}

function row(label, ok, text) {
  const li = document.createElement('li');
  li.className = ok === true ? 'ok' : ok === false ? 'bad' : 'info';
  const b = document.createElement('strong');
  b.textContent = `${label}: `;
  li.append(b, document.createTextNode(text));
  return li;
}

function layers(v) {
  const out = [];
  const r = v.receipt;
  if (r) {
    if (!r.present) out.push(row('Receipt', null, 'absent'));
    else {
      out.push(row('Answer hash', r.answerHashOk, r.answerHashOk ? 'matches the signed hash' : 'does NOT match: the text was changed'));
      out.push(row('Receipt signature (ML-DSA-87)', r.sigOk, r.sigOk ? `valid, key ${r.keyId.slice(0, 16)}…` : 'INVALID'));
      if (r.diversity) out.push(row('SLH-DSA diversity signature', r.diversity.ok, r.diversity.ok ? 'valid' : 'INVALID'));
      if (!r.councilGrounded) out.push(row('Council', null, 'single-model fallback (signed)'));
    }
    if (r.questionBinding !== undefined) {
      out.push(
        r.questionBinding === 'none'
          ? row(
              'Question',
              r.promptBound ? false : null,
              r.promptBound ? 'does NOT match the signed question' : 'not covered by any signature (shown, not attested)',
            )
          : row('Question', true, `attested (${r.questionBinding})`),
      );
    }
  }
  if (v.excerpt)
    out.push(row('Pinned quote', v.excerpt.ok, v.excerpt.ok ? 'exact slice of the signed answer' : 'NOT in the signed answer'));
  if (v.bridge) {
    out.push(row('Model-plane signature (ML-DSA-87)', v.bridge.primaryOk, v.bridge.primaryOk ? 'valid' : 'INVALID'));
    if (v.bridge.cosignPresent)
      out.push(row('Model-plane co-signature (Falcon-1024)', v.bridge.secondaryOk, v.bridge.secondaryOk ? 'valid' : 'INVALID'));
  }
  if (v.turns) out.push(row('Turns', v.overallOk, `${v.turns.filter((t) => t.verdict.overallOk).length} of ${v.turns.length} verify`));
  if (v.run)
    out.push(
      row(
        'Run',
        v.run.hashOk && v.run.budgetOk,
        `hash ${v.run.hashOk ? 'ok' : 'FAILED'}, ${v.run.steps} steps, budget ${v.run.budgetOk ? 'ok' : 'FAILED'}`,
      ),
    );
  if (v.export)
    out.push(
      row(
        'Export',
        v.export.manifestOk && v.export.payloadOk && v.export.countsOk,
        `manifest ${v.export.manifestOk ? 'ok' : 'FAILED'}, payload ${v.export.payloadOk ? 'ok' : 'FAILED'}, counts ${v.export.countsOk ? 'ok' : 'FAILED'}`,
      ),
    );
  if (v.sth) out.push(row('Tree head', v.sth.bodyOk, `${v.sth.log ?? '?'} at size ${v.sth.treeSize ?? '?'}`));
  if (v.consistency)
    out.push(
      row('Consistency proof', v.consistency.proofOk, v.consistency.proofOk ? 'older head is a prefix of the newer' : 'does NOT verify'),
    );
  if (v.timestampOrderOk !== undefined)
    out.push(
      row(
        'Timestamp order',
        v.timestampOrderOk,
        v.timestampOrderOk ? 'ordered like the sizes' : 'older head signed after the newer (rollback)',
      ),
    );
  return out;
}

async function run() {
  const result = $('result');
  result.replaceChildren();
  result.className = '';
  let keys;
  try {
    keys = pinnedKeys();
  } catch (e) {
    result.className = 'error';
    result.textContent = `Keys: ${e.message}`;
    return;
  }
  try {
    const r = await verifyBundle($('bundle').value, { trustedKeys: keys });
    const v = r.verdict;
    const head = document.createElement('div');
    head.id = 'summary';
    const integrity = document.createElement('p');
    integrity.id = 'integrity';
    integrity.className = v.overallOk ? 'ok' : 'bad';
    integrity.textContent = v.overallOk
      ? 'Integrity: PASS. The signatures verify and the signed content is unaltered.'
      : 'Integrity: FAIL. This bundle does not verify. Do not rely on it.';
    const origin = document.createElement('p');
    origin.id = 'origin';
    origin.className = r.signerRecognized ? 'ok' : 'info';
    origin.textContent =
      keys.length === 0
        ? 'Origin: not checked. No keys are pinned, so nothing here says who signed it.'
        : r.signerRecognized
          ? 'Origin: recognised. It was signed with one of the pinned keys (the keys the service publishes).'
          : 'Origin: NOT recognised. The signing key is not one of the pinned keys.';
    head.append(integrity, origin);
    if (r.record) {
      const rec = document.createElement('p');
      rec.className = 'ok';
      const own = r.record.unattested?.length
        ? ` Its ${r.record.unattested.join(', ')} are the maker's own words: shown, not attested.`
        : '';
      rec.textContent = `AI Provenance Record: its summary matches its proof${r.record.originClaimUnconfirmed ? ', but its origin claim is not confirmed by these keys' : ''}.${own}`;
      head.append(rec);
    }
    const ul = document.createElement('ul');
    ul.id = 'layers';
    ul.append(...layers(v));
    const note = document.createElement('p');
    note.className = 'note';
    note.textContent = `Kind: ${r.kind}. A passing verdict attests origin and integrity, never that the content is accurate.`;
    result.append(head, ul, note);
  } catch (e) {
    result.className = 'error';
    result.textContent = isSvcError(e) ? `Not verifiable: ${e.message} (${e.code})` : `Error: ${e?.message}`;
  }
}

$('verify').addEventListener('click', () => void run());
const drop = $('bundle');
drop.addEventListener('dragover', (e) => e.preventDefault());
drop.addEventListener('drop', async (e) => {
  e.preventDefault();
  const f = e.dataTransfer?.files[0];
  if (f) {
    drop.value = await f.text();
    void run();
  }
});
$('keys-state').textContent =
  embedded && Array.isArray(embedded.keys)
    ? `${embedded.keys.length} keys of this server are pinned.`
    : 'No keys are pinned: paste a /api/provenance/pubkey response to check origin.';
window.__verifierReady = true;
