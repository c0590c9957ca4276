// The opt-in "look up in the ledger" action, for a page served by a live server: three requests,
// named before they are made, to the server that served the page, never during verification. The
// inclusion path is checked here against the root of the signed tree head (never against a root
// the unsigned inclusion answer gives), and the head's signature with the server's published keys.
import { verifyBundle, type VerifyOptions } from '@svc/core';
import { fromHex } from '@svc/core/primitives';
import { verifyInclusion } from '@svc/core/merkle';
import { parseTreeHead } from '@svc/core/issue';
import { parseTlogProof } from '@svc/core/tlog';
import type { InclusionResponse, LedgerHistory, LedgerSth } from '@svc/core/schemas';
import type { Static } from 'typebox';
import { el, facts, row, section } from './dom.js';
import { type Doc, isObj } from './doc.js';
import { inclusionPicture } from './pictures.js';

const NS = 'http://www.w3.org/2000/svg';
/** A server's answer: its status and body, typed as the schema says but read defensively (a body may be anything). */
type Answer<T> = { status: number; body: Partial<T> | null };
type History = Static<typeof LedgerHistory>;

/** The requests the lookup makes, in order, as shown before it runs. */
export function lookupRequests(origin: string): string[] {
  return [
    `GET ${origin}/api/transparency/ledger`,
    `POST ${origin}/api/transparency/ledger/inclusion`,
    `GET ${origin}/api/transparency/ledger/history`,
  ];
}

/** The signed answer hash a document's receipt carries, if any. */
export function signedAnswerHash(doc: Doc): string | null {
  const r = isObj(doc.proof) ? doc.proof.receipt : doc.receipt;
  return isObj(r) && typeof r.answer_sha256 === 'string' && /^[0-9a-f]{64}$/.test(r.answer_sha256) ? r.answer_sha256 : null;
}

async function getJson<T>(url: string, init?: RequestInit): Promise<Answer<T>> {
  const res = await fetch(url, { ...init, credentials: 'omit', cache: 'no-store' });
  const body: unknown = await res.json().catch(() => null);
  return { status: res.status, body: isObj(body) ? (body as Partial<T>) : null };
}

/** The tree heads of the history as a line of sizes, forked or inconsistent sizes and a withheld head marked. */
function historyPicture(history: Partial<History> | null, withheld: string | null): HTMLElement {
  const cps = (Array.isArray(history?.checkpoints) ? history.checkpoints : [])
    // An empty tree's head shows nothing a lookup can find: left out of the picture.
    .filter((c) => isObj(c) && Number.isSafeInteger(c.tree_size) && c.tree_size > 0)
    .slice(0, 20)
    .reverse();
  const listed = (x: unknown): unknown[] => (Array.isArray(x) ? x : []);
  const bad = new Set([...listed(history?.forked_sizes), ...listed(history?.inconsistent_sizes)]);
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
    const at =
      typeof c.recorded === 'number' && Number.isSafeInteger(c.recorded)
        ? `, recorded ${new Date(c.recorded).toISOString().replace('.000Z', 'Z')}`
        : '';
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
export async function lookUp(doc: Doc, serverKeys: unknown[], origin: string, serverLog: string | null = null): Promise<HTMLElement> {
  const hash = signedAnswerHash(doc);
  const rows: HTMLLIElement[] = [];
  const out = section('In this server\u2019s ledger', 'lookup');
  // A document logged elsewhere is looked up here all the same, and said to be from another log.
  let named: string | null = null;
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
  const ledger = await getJson<Static<typeof LedgerSth>>(`${origin}/api/transparency/ledger`);
  const head = ledger.body?.signed_tree_head;
  const withheld = typeof ledger.body?.sth_withheld === 'string' ? ledger.body.sth_withheld : null;
  let root: Uint8Array | null = null;
  let size: number | null = null;
  if (ledger.status !== 200 || !isObj(head))
    rows.push(
      row(
        'Signed tree head',
        false,
        withheld ? `withheld by the server (${withheld}): nothing can be checked against it` : `not available (HTTP ${ledger.status})`,
      ),
    );
  else {
    const v = await verifyBundle(JSON.stringify(head), { trustedKeys: serverKeys as VerifyOptions['trustedKeys'] });
    const body = typeof head.signed === 'string' ? parseTreeHead(head.signed) : null;
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
  const incl = await getJson<Static<typeof InclusionResponse>>(`${origin}/api/transparency/ledger/inclusion`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(size ? { answer_sha256: hash, tree_size: size } : { answer_sha256: hash }),
  });
  const history = await getJson<History>(`${origin}/api/transparency/ledger/history`);
  const r = incl.body;
  if (incl.status !== 200 || !isObj(r)) rows.push(row('Inclusion', false, `the server did not answer (HTTP ${incl.status})`));
  else if (!r.found) rows.push(row('Inclusion', false, 'this answer is not in the ledger'));
  else {
    const proof = Array.isArray(r.proof) ? r.proof.map((h) => fromHex(h)) : [];
    const leaf = fromHex(r.leaf);
    const index = typeof r.index === 'number' ? r.index : -1;
    const hashes = proof.filter((h): h is Uint8Array => h !== null);
    const ok =
      !!root &&
      !!leaf &&
      size !== null &&
      hashes.length === proof.length &&
      r.tree_size === size &&
      verifyInclusion(index, size, leaf, hashes, root);
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
    if (Array.isArray(r.proof) && typeof r.tree_size === 'number') out.append(inclusionPicture(index, r.tree_size, r.proof, 'signed root'));
  }
  if (history.status === 200) out.append(historyPicture(history.body, withheld));
  out.append(el('ul', { id: 'lookup-checks' }, ...rows));
  return out;
}
