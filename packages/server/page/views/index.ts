// What the page shows beside a verdict, kind by kind: one table, like the core's dispatch table,
// each entry typed by the response of its kind (VerifyResponse narrowed on `kind`), saying where
// that kind keeps the receipt that names its signer and what its panels and checks are. The
// document is only displayed here; every judgement comes from the core's verdict.
import { KINDS, type Kind, type KindEntry, type VerifyResponse } from '@svc/core';
import { row, section } from '../dom.js';
import { type Doc, isObj, obj } from '../doc.js';
import { consistencyContent, exportContent, headFacts, runContent, transcriptContent } from './bundles.js';
import { logPicture, proofContent, proofRows } from './proof.js';
import { okText, receiptRows } from './receipt.js';
import { recordContent } from './record.js';

/** The kinds the page shows: every kind of the core's table (a kind without a view does not compile). */
type PageKind = Exclude<Kind, 'unknown'>;
type ResponseOf<K extends PageKind> = Extract<VerifyResponse, { kind: `${string}-${Extract<KindEntry, { kind: K }>['suffix']}` }>;

export interface Described {
  panels: (HTMLElement | null)[];
  rows: HTMLLIElement[];
}

interface KindView<K extends PageKind> {
  /** The receipt that names the document's signer (its first, for a transcript), where this kind keeps it. */
  receipt(doc: Doc): unknown;
  show(doc: Doc, res: ResponseOf<K>): Described;
}

const VIEWS: { [K in PageKind]: KindView<K> } = {
  proof: {
    receipt: (doc) => doc.receipt,
    show: (doc, { verdict: v }) => ({
      panels: [
        section(v.overallOk ? 'What was signed' : 'What the bundle claims (it does not verify)', 'content', ...proofContent(doc, v)),
        logPicture(doc, v),
      ],
      rows: proofRows(v),
    }),
  },
  transcript: {
    receipt: (doc) => (Array.isArray(doc.turns) ? obj(doc.turns[0]).receipt : undefined),
    show: (doc, { verdict: v }) => {
      const rows = [row('Turns', v.overallOk, `${v.turns.filter((t) => t.verdict.overallOk).length} of ${v.turns.length} verify`)];
      if (v.promptUnverified) rows.push(row('Questions', null, 'at least one turn shows a question no signature covers'));
      return { panels: [section('The conversation', 'content', ...transcriptContent(doc, v))], rows };
    },
  },
  run: {
    receipt: (doc) => doc.receipt,
    show: (doc, { verdict: v }) => ({
      panels: [section('The run', 'content', ...runContent(doc, v))],
      rows: [
        ...receiptRows(v.receipt, 'Run'),
        row(
          'Run',
          v.run.hashOk && v.run.budgetOk,
          `hash ${v.run.hashOk ? 'ok' : 'FAILED'}, ${v.run.steps} steps, budget ${v.run.budgetOk ? 'ok' : 'FAILED'}`,
        ),
      ],
    }),
  },
  export: {
    receipt: (doc) => obj(doc.proof).receipt,
    show: (doc, { verdict: v }) => ({
      panels: [section('The export', 'content', ...exportContent(doc, v))],
      rows: [
        ...receiptRows(v.receipt, 'Manifest'),
        row(
          'Export',
          v.export.manifestOk && v.export.payloadOk && v.export.countsOk,
          `manifest ${v.export.manifestOk ? 'ok' : 'FAILED'}, payload ${v.export.payloadOk ? 'ok' : 'FAILED'}, counts ${v.export.countsOk ? 'ok' : 'FAILED'}`,
        ),
      ],
    }),
  },
  sth: {
    receipt: (doc) => doc.receipt,
    show: (_doc, { verdict: v }) => ({
      panels: [section('The tree head', 'content', headFacts(v.sth))],
      rows: [
        ...receiptRows(v.receipt, 'Tree head'),
        row('Tree head', v.sth.bodyOk, v.sth.bodyOk ? `${v.sth.log} at size ${v.sth.treeSize}` : 'its signed text is not a tree head'),
      ],
    }),
  },
  consistency: {
    receipt: (doc) => obj(doc.new).receipt,
    show: (_doc, { verdict: v }) => {
      const rows = [
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
      return { panels: [section('The two tree heads', 'content', ...consistencyContent(v))], rows };
    },
  },
  record: {
    receipt: (doc) => obj(doc.proof).receipt ?? doc.receipt,
    show: (doc, res) => {
      const v = res.verdict;
      const record = section('The record', 'record', ...recordContent(doc, res));
      const inner = isObj(doc.proof) ? doc.proof : isObj(doc.run) ? doc : {};
      // A record of a run carries the run verdict; one of a proof, the proof verdict.
      if ('run' in v) {
        return {
          panels: [record, section('The embedded run', 'content', ...runContent(inner, v))],
          rows: [
            ...receiptRows(v.receipt, 'Run'),
            row(
              'Run',
              v.run.hashOk && v.run.budgetOk,
              `hash ${v.run.hashOk ? 'ok' : 'FAILED'}, budget ${v.run.budgetOk ? 'ok' : 'FAILED'}`,
            ),
          ],
        };
      }
      return {
        panels: [record, section('The embedded proof', 'content', ...proofContent(inner, v)), logPicture(inner, v)],
        rows: proofRows(v),
      };
    },
  },
};

/** The kind without its service prefix: `svc-proof` -> `proof`. */
export function shortKind(kind: string, service: string): string {
  return kind.startsWith(`${service}-`) ? kind.slice(service.length + 1) : kind;
}

/** The core's name of a response's kind (`svc-autopilot-run` -> `run`), or null for one it does not know. */
export function kindOf(res: VerifyResponse): PageKind | null {
  return KINDS.find((k) => res.kind === `${res.service}-${k.suffix}`)?.kind ?? null;
}

/** The view of a response's kind, with the response typed for it; null for a kind the page does not know. */
function viewOf(res: VerifyResponse): { view: KindView<PageKind>; res: ResponseOf<PageKind> } | null {
  const kind = kindOf(res);
  if (kind === null) return null;
  // The one place the union is taken apart: the table's entry for `kind` takes exactly the response
  // whose kind ends in its suffix, which TypeScript cannot correlate through a lookup on its own.
  return { view: VIEWS[kind] as KindView<PageKind>, res: res as ResponseOf<PageKind> };
}

/** The content panels and the checks for a verified response `res` of document `doc`. */
export function describe(doc: Doc, res: VerifyResponse): { panels: HTMLElement[]; rows: HTMLLIElement[] } {
  const found = viewOf(res);
  if (!found) return { panels: [], rows: [] };
  const d = found.view.show(doc, found.res);
  return { panels: d.panels.filter((p) => p !== null), rows: d.rows };
}

/** The key id the document says signed it (the first receipt's), for the origin sentence. */
export function claimedKeyId(doc: Doc, res: VerifyResponse): string | null {
  const r = viewOf(res)?.view.receipt(doc);
  return isObj(r) && typeof r.key_id === 'string' ? r.key_id : null;
}
