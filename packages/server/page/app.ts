// The in-browser verifier: the core's verifyBundle, run locally. Nothing leaves the page while
// verifying; the only keys pinned are the ones embedded when the server served the page, the ones
// pasted by the user, or, for a sample, the project's published test keys (said so on screen).
// V1: the same verifyBundle as the API, run here; nothing is fetched or stored while verifying.
import { isSvcError, parseDocument, verifyBundle, type VerifyOptions, type VerifyResponse } from '@svc/core';
import { envelopeChecker, readCoseKeySet } from '@svc/core/envelope';
import { scittChecker } from '@svc/core/scitt';
import { fromBase64Url } from '@svc/core/primitives';
import { logPolicy } from '@svc/core/tlog';
import { el } from './dom.js';
import { type Doc, isObj, obj } from './doc.js';
import { lookUp, lookupRequests, signedAnswerHash } from './lookup.js';
import { claimedKeyId, describe, kindOf, shortKind } from './views/index.js';

declare global {
  interface Window {
    __verifierReady?: boolean;
    __lastVerdict?: () => Saved | null;
  }
}

/** The page's own elements, by id: every one is in page.html, so a missing one is a build fault. */
function $<T extends HTMLElement = HTMLElement>(id: string): T {
  const e = document.getElementById(id);
  if (!e) throw new Error(`page.html has no #${id}`);
  return e as T;
}
const json = (id: string): unknown => JSON.parse(document.getElementById(id)?.textContent || 'null');

/** What the server embedded when it served the page: its published keys, model-plane keys, log policy and SCITT receipt keys. */
interface Embedded {
  keys?: unknown;
  model_plane_keys?: unknown;
  log_policy?: unknown;
  scitt_keys?: unknown;
}
interface Samples {
  keySets: unknown[][];
  items: { label: string; document: unknown; keys: number }[];
}
interface Pinned {
  keys: unknown[];
  from: string | null;
  bridge?: unknown[] | undefined;
  logPolicy?: string | undefined;
  /** The serving log's SCITT receipt keys: its /.well-known/scitt-keys COSE_KeySet, base64url. */
  scittKeys?: string | undefined;
}
/** What "save verdict" writes. */
interface Saved {
  verified_at: string;
  pinned_keys: string;
  response: VerifyResponse;
}

const embeddedJson = json('pinned-keys');
const embedded: Embedded | null = isObj(embeddedJson) ? embeddedJson : null;
const samples = (json('samples') as Samples | null) ?? { keySets: [], items: [] };
let sampleKeys: unknown[] | null = null;
let last: Saved | null = null;

function pinnedKeys(): Pinned {
  const pasted = $<HTMLTextAreaElement>('keys').value.trim();
  if (pasted) {
    const doc: unknown = JSON.parse(pasted);
    const keys = Array.isArray(doc) ? doc : obj(doc).keys;
    if (!Array.isArray(keys)) throw new Error('pasted keys must be a /api/provenance/pubkey response or an array of keys');
    return { keys, from: 'the keys pasted above' };
  }
  if (sampleKeys) return { keys: sampleKeys, from: "the project's published test keys (this is a sample)" };
  return embedded && Array.isArray(embedded.keys)
    ? {
        keys: embedded.keys,
        from: "this server's published keys",
        // Served by a server, the page pins its model-plane keys and judges its log's checkpoints too.
        bridge: Array.isArray(embedded.model_plane_keys) ? embedded.model_plane_keys : undefined,
        logPolicy: typeof embedded.log_policy === 'string' ? embedded.log_policy : undefined,
        // and the SCITT statements a bundle carries, with the keys its log signs receipts with.
        scittKeys: typeof embedded.scitt_keys === 'string' ? embedded.scitt_keys : undefined,
      }
    : { keys: [], from: null };
}

/** This server's log origin, from the `log <vkey>` line of the policy it embeds (a vkey starts with its name). */
function logOriginOf(policy: unknown): string | null {
  const line = typeof policy === 'string' ? policy.split('\n').find((l) => l.startsWith('log ')) : undefined;
  return line ? (line.slice(4).trim().split('+')[0] ?? null) : null;
}

/** verifyBundle's options for what is pinned; a policy the page cannot read is no policy. */
function verifyOptions(pinned: Pinned): VerifyOptions {
  // The page checks JWS and COSE envelopes too, as the server does.
  const o: VerifyOptions = { trustedKeys: pinned.keys as VerifyOptions['trustedKeys'], envelopes: envelopeChecker };
  if (pinned.bridge) o.trustedBridgeKeys = pinned.bridge as VerifyOptions['trustedBridgeKeys'];
  if (pinned.logPolicy) {
    try {
      o.logPolicy = logPolicy(pinned.logPolicy);
    } catch {
      // left out: the log layer then says its checkpoint was not checked
    }
  }
  // The keys as the server publishes them, each with its kid: another log's receipt is set aside
  // as unknown rather than judged by this log's key.
  const set = pinned.scittKeys ? fromBase64Url(pinned.scittKeys) : null;
  if (set) {
    try {
      o.scitt = scittChecker({ logs: [{ keys: readCoseKeySet(set) }] });
    } catch {
      // left out: the SCITT layer then says it was carried, not checked
    }
  }
  return o;
}

/** The origin sentence: true for the case it is shown in. A record adds what it attests itself. */
function originLine(res: VerifyResponse, doc: Doc, pinned: Pinned): [string, string] {
  const [cls, text] = originOfSignature(res, doc, pinned);
  const claimed = obj(doc.attested).signer_recognized;
  if (kindOf(res) === 'record' && typeof claimed === 'boolean')
    return [
      cls,
      `${text} The record attests signer_recognized: ${claimed} (${claimed ? 'the service that made it pinned the signer' : 'the service that made it did not pin the signer'}); that is the maker's keys, not this page's.`,
    ];
  return [cls, text];
}

function originOfSignature(res: VerifyResponse, doc: Doc, pinned: Pinned): [string, string] {
  if (pinned.keys.length === 0) return ['info', 'Origin: not checked. No keys are pinned, so nothing here says who signed it.'];
  if (res.signerRecognized) return ['ok', `Origin: recognised. It was signed with one of ${pinned.from}.`];
  const claimed = claimedKeyId(doc, res);
  const pinnedIds = new Set(pinned.keys.map((k) => obj(k).key_id).filter((x) => typeof x === 'string'));
  if (!res.verdict.overallOk)
    return claimed && pinnedIds.has(claimed)
      ? [
          'bad',
          `Origin: not established. The bundle names a pinned key (${claimed.slice(0, 16)}…), but its content or signature does not verify, so nothing shows that key signed it.`,
        ]
      : ['bad', 'Origin: not established. The bundle does not verify, so nothing here says who signed it.'];
  return ['bad', `Origin: NOT recognised. It verifies, but the signing key is not one of ${pinned.from}.`];
}

function showError(text: string): void {
  const result = $('result');
  result.replaceChildren(el('p', { role: 'alert' }, text));
  result.className = 'error';
  $('actions').hidden = true;
}

async function run(): Promise<void> {
  const result = $('result');
  result.replaceChildren();
  result.className = '';
  let pinned: Pinned;
  try {
    pinned = pinnedKeys();
  } catch (e) {
    return showError(`Keys: ${e instanceof Error ? e.message : String(e)}`);
  }
  const text = $<HTMLTextAreaElement>('bundle').value;
  try {
    const res = await verifyBundle(text, verifyOptions(pinned));
    // Displayed from the same strict parse the verdict came from (duplicate names refused there).
    const parsed = parseDocument(text);
    const doc: Doc = isObj(parsed) ? parsed : {};
    const v = res.verdict;
    const [originClass, originText] = originLine(res, doc, pinned);
    const { panels, rows } = describe(doc, res);
    const kind = shortKind(res.kind, res.service);
    result.append(
      el(
        'div',
        { id: 'summary' },
        el(
          'p',
          { id: 'integrity', class: v.overallOk ? 'ok' : 'bad' },
          v.overallOk
            ? 'Integrity: PASS. The signatures verify and the signed content is unaltered.'
            : 'Integrity: FAIL. This document does not verify. Do not rely on it.',
        ),
        el('p', { id: 'origin', class: originClass }, originText),
        el('p', { id: 'kind' }, `Kind: ${kind.replace(/-/g, ' ')} (${res.kind})`),
      ),
      ...panels,
      el(
        'section',
        { class: 'panel', id: 'checks', 'aria-labelledby': 'checks-h' },
        el('h2', { id: 'checks-h' }, 'Checks'),
        el('ul', { id: 'layers' }, ...rows),
      ),
      el('p', { class: 'note' }, 'A passing verdict attests origin and integrity, never that the content is accurate.'),
    );
    // Served by a live server: an opt-in lookup in its ledger, a visible action of its own.
    if (/^https?:$/.test(location.protocol) && signedAnswerHash(doc)) {
      const box = el(
        'section',
        { class: 'panel', id: 'lookup-offer', 'aria-labelledby': 'lookup-offer-h' },
        el('h2', { id: 'lookup-offer-h' }, 'Look it up in this server’s ledger'),
      );
      const button = el('button', { type: 'button', id: 'lookup' }, 'Look up in the ledger');
      box.append(
        el('p', {}, 'Verification above made no request. This action makes these three, to the server that served this page:'),
        el('ul', { id: 'lookup-requests' }, ...lookupRequests(location.origin).map((r) => el('li', {}, el('code', {}, r)))),
        button,
      );
      button.addEventListener('click', async () => {
        button.disabled = true;
        try {
          // The server's head is judged by the server's own published keys, whatever this document was checked with.
          const serverKeys = Array.isArray(embedded?.keys) ? embedded.keys : pinned.keys;
          box.after(await lookUp(doc, serverKeys, location.origin, logOriginOf(embedded?.log_policy)));
        } catch (e) {
          box.append(el('p', { class: 'error', role: 'alert' }, `The lookup failed: ${e instanceof Error ? e.message : String(e)}`));
        }
      });
      result.append(box);
    }
    last = { verified_at: new Date().toISOString(), pinned_keys: pinned.from ?? 'none', response: res };
    $('actions').hidden = false;
    $('summary').focus?.();
  } catch (e) {
    showError(isSvcError(e) ? `Not verifiable: ${e.message} (${e.code})` : `Error: ${e instanceof Error ? e.message : String(e)}`);
  }
}

async function load(textPromise: Promise<string>, keys: unknown[] | null = null): Promise<void> {
  sampleKeys = keys;
  $<HTMLTextAreaElement>('bundle').value = await textPromise;
  updateKeysState();
  await run();
}

function updateKeysState(): void {
  $('keys-state').textContent = sampleKeys
    ? "The project's published test keys are pinned for this sample."
    : embedded && Array.isArray(embedded.keys)
      ? `${embedded.keys.length} keys of this server are pinned.`
      : 'No keys are pinned: paste a /api/provenance/pubkey response to check origin.';
}

$('verify').addEventListener('click', () => {
  sampleKeys = null;
  updateKeysState();
  void run();
});
$('file').addEventListener('change', () => {
  const f = $<HTMLInputElement>('file').files?.[0];
  if (f) void load(f.text());
});
const drop = $('bundle');
drop.addEventListener('dragover', (e) => e.preventDefault());
drop.addEventListener('drop', (e) => {
  e.preventDefault();
  const f = e.dataTransfer?.files[0];
  if (f) void load(f.text());
});
const picker = $<HTMLSelectElement>('sample');
for (const [i, s] of samples.items.entries()) picker.append(el('option', { value: String(i) }, s.label));
picker.disabled = samples.items.length === 0;
$('load-sample').addEventListener('click', () => {
  const s = samples.items[Number(picker.value)];
  if (s) void load(Promise.resolve(JSON.stringify(s.document, null, 2)), samples.keySets[s.keys] ?? []);
});
$('save').addEventListener('click', () => {
  if (!last) return;
  const url = URL.createObjectURL(new Blob([`${JSON.stringify(last, null, 2)}\n`], { type: 'application/json' }));
  const a = el('a', { href: url, download: 'verdict.json' });
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
});
$('print').addEventListener('click', () => window.print());
updateKeysState();
window.__verifierReady = true;
// For tests and tools: the last verdict shown, as "save verdict" writes it.
window.__lastVerdict = () => last;
