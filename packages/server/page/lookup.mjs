// The opt-in "look up in the ledger" action, for a page served by a live server: three requests,
// named before they are made, to the server that served the page, never during verification. The
// inclusion path is checked here against the root of the signed tree head (never against a root
// the unsigned inclusion answer gives), and the head's signature with the server's published keys.
import { fromHex, parseTreeHead, verifyBundle, verifyInclusion } from '@svc/core';
import { parseTlogProof } from '@svc/core/tlog';
import { el, facts, row, section } from './dom.mjs';
import { inclusionPicture } from './pictures.mjs';

const NS = 'http://www.w3.org/2000/svg';
const isObj = (o) => typeof o === 'object' && o !== null && !Array.isArray(o);

/** The requests the lookup makes, in order, as shown before it runs. */
export function lookupRequests(origin) {
  return [
    `GET ${origin}/api/transparency/ledger`,
    `POST ${origin}/api/transparency/ledger/inclusion`,
    `GET ${origin}/api/transparency/ledger/history`,
  ];
}

/** The signed answer hash a document's receipt carries, if any. */
export function signedAnswerHash(doc) {
  const r = isObj(doc.proof) ? doc.proof.receipt : doc.receipt;
  return isObj(r) && typeof r.answer_sha256 === 'string' && /^[0-9a-f]{64}$/.test(r.answer_sha256) ? r.answer_sha256 : null;
}

async function getJson(url, init) {
  const res = await fetch(url, { ...init, credentials: 'omit', cache: 'no-store' });
  const body = await res.json().catch(() => null);
  return { status: res.status, body };
}

/** The tree heads of the history as a line of sizes, forked or inconsistent sizes and a withheld head marked. */
function historyPicture(history, withheld) {
  const cps = (Array.isArray(history?.checkpoints) ? history.checkpoints : [])
    // An empty tree's head shows nothing a lookup can find: left out of the picture.
    .filter((c) => Number.isSafeInteger(c?.tree_size) && c.tree_size > 0)
    .slice(0, 20)
    .reverse();
  const bad = new Set([...(history?.forked_sizes ?? []), ...(history?.inconsistent_sizes ?? [])]);
  const W = 340;
  const s = document.createElementNS(NS, 'svg');
  s.setAttribute('viewBox', `0 0 ${W} 80`);
  s.setAttribute('width', '100%');
  s.setAttribute('role', 'img');
  s.setAttribute('class', 'history');
  const title = document.createElementNS(NS, 'title');
  title.textContent = `${cps.length} recent tree heads, oldest to newest${withheld ? `; the head is withheld (${withheld})` : ''}`;
  s.append(title);
  const axis = document.createElementNS(NS, 'line');
  for (const [k, v] of Object.entries({ x1: 10, y1: 40, x2: W - 10, y2: 40, class: 'axis' })) axis.setAttribute(k, String(v));
  s.append(axis);
  const n = cps.length + (withheld ? 1 : 0);
  cps.forEach((c, i) => {
    const x = 20 + ((W - 40) * i) / Math.max(1, n - 1);
    const dot = document.createElementNS(NS, 'circle');
    for (const [k, v] of Object.entries({ cx: x, cy: 40, r: 6, class: bad.has(c.tree_size) ? 'tick bad' : 'tick' }))
      dot.setAttribute(k, String(v));
    const t = document.createElementNS(NS, 'title');
    const at = Number.isSafeInteger(c.recorded) ? `, recorded ${new Date(c.recorded).toISOString().replace('.000Z', 'Z')}` : '';
    t.textContent = `size ${c.tree_size}${at}${bad.has(c.tree_size) ? ' (forked or inconsistent)' : ''}`;
    dot.append(t);
    const label = document.createElementNS(NS, 'text');
    for (const [k, v] of Object.entries({ x, y: i % 2 ? 70 : 24, 'text-anchor': 'middle' })) label.setAttribute(k, String(v));
    label.textContent = String(c.tree_size);
    s.append(dot, label);
  });
  if (withheld) {
    const x = W - 20;
    const mark = document.createElementNS(NS, 'rect');
    for (const [k, v] of Object.entries({ x: x - 6, y: 34, width: 12, height: 12, class: 'tick bad' })) mark.setAttribute(k, String(v));
    const label = document.createElementNS(NS, 'text');
    for (const [k, v] of Object.entries({ x, y: 70, 'text-anchor': 'end' })) label.setAttribute(k, String(v));
    label.textContent = `withheld: ${withheld}`;
    s.append(mark, label);
  }
  const figure = el(
    'figure',
    { class: 'picture', id: 'history-picture' },
    el(
      'figcaption',
      {},
      withheld
        ? `Recent tree heads; the current head is withheld (${withheld}).`
        : 'Recent tree heads, oldest to newest; forked or inconsistent sizes in red.',
    ),
  );
  figure.prepend(s);
  return figure;
}

/** Runs the lookup and returns the panel that shows it. */
export async function lookUp(doc, serverKeys, origin, serverLog = null) {
  const hash = signedAnswerHash(doc);
  const rows = [];
  const out = section('In this server\u2019s ledger', 'lookup');
  // A document logged elsewhere is looked up here all the same, and said to be from another log.
  let named = null;
  try {
    named = typeof doc?.tlogProof === 'string' ? parseTlogProof(doc.tlogProof).parsed.origin : null;
  } catch {
    // not a proof this page can read: the log layer above says so
  }
  if (named && serverLog && named !== serverLog)
    out.append(
      el(
        'p',
        { class: 'info', id: 'other-log' },
        `This answer names the log ${named}; this server keeps ${serverLog}, another log. What follows is this server's ledger only.`,
      ),
    );
  if (!hash) {
    out.append(el('p', {}, 'This document carries no signed answer hash to look up.'));
    return out;
  }
  const ledger = await getJson(`${origin}/api/transparency/ledger`);
  const head = ledger.body?.signed_tree_head;
  const withheld = typeof ledger.body?.sth_withheld === 'string' ? ledger.body.sth_withheld : null;
  let root = null;
  let size = null;
  if (ledger.status !== 200 || !isObj(head))
    rows.push(
      row(
        'Signed tree head',
        false,
        withheld ? `withheld by the server (${withheld}): nothing can be checked against it` : `not available (HTTP ${ledger.status})`,
      ),
    );
  else {
    const v = await verifyBundle(JSON.stringify(head), { trustedKeys: serverKeys });
    const body = parseTreeHead(head.signed);
    rows.push(
      row(
        'Signed tree head',
        v.verdict.overallOk,
        v.verdict.overallOk
          ? `signature valid${v.signerRecognized ? ", by one of this server's published keys" : ', by a key this server does not publish'}`
          : 'does NOT verify',
      ),
    );
    if (v.verdict.overallOk && body) {
      root = fromHex(body.root_hash);
      size = body.tree_size;
    }
  }
  const incl = await getJson(`${origin}/api/transparency/ledger/inclusion`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(size ? { answer_sha256: hash, tree_size: size } : { answer_sha256: hash }),
  });
  const history = await getJson(`${origin}/api/transparency/ledger/history`);
  const r = incl.body;
  if (incl.status !== 200 || !isObj(r)) rows.push(row('Inclusion', false, `the server did not answer (HTTP ${incl.status})`));
  else if (!r.found) rows.push(row('Inclusion', false, 'this answer is not in the ledger'));
  else {
    const proof = Array.isArray(r.proof) ? r.proof.map((h) => fromHex(h)) : [];
    const leaf = fromHex(r.leaf);
    const ok = !!root && !!leaf && proof.every(Boolean) && r.tree_size === size && verifyInclusion(r.index, size, leaf, proof, root);
    rows.push(
      row(
        'Inclusion',
        ok,
        ok ? `at index ${r.index} of ${size}, checked against the signed head's root` : 'the path does NOT lead to the signed root',
      ),
    );
    out.append(
      facts([
        ['Leaf index', String(r.index)],
        ['Tree size', String(r.tree_size)],
      ]),
    );
    if (Array.isArray(r.proof)) out.append(inclusionPicture(r.index, r.tree_size, r.proof, 'signed root'));
  }
  if (history.status === 200) out.append(historyPicture(history.body, withheld));
  out.append(el('ul', { id: 'lookup-checks' }, ...rows));
  return out;
}
