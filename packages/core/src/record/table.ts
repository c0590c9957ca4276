// The published obligation mapping (wire-format s.11). Illustrative and factual: it says what the
// evidence can support and where it stops, and never that anything is compliant or certified.
import type { Static } from 'typebox';
import type * as S from '../schemas/resources.js';

/**
 * One row of a record's AI Act support table.
 *
 * @example
 * ```ts
 * const rows: AiActSupportItem[] = aiActSupport(false);
 * ```
 */
export type AiActSupportItem = Static<typeof S.AiActSupportItem>;

/**
 * The AI Act support table of a record: which articles the evidence can support, and how far.
 *
 * @example
 * ```ts
 * for (const item of AI_ACT_SUPPORT) console.log(item.article, item.title, item.limits);
 * ```
 */
export const AI_ACT_SUPPORT: readonly AiActSupportItem[] = Object.freeze([
  {
    article: 'Article 12, Regulation (EU) 2024/1689',
    title: 'Record-keeping',
    supports:
      'A signed receipt with a signing time, and a leaf in an append-only transparency log, can serve as one tamper-evident log entry for a generated output.',
    limits:
      'Covers only the signed output and the metadata bound into its receipt. It is not the logging system the Article describes and says nothing about inputs that the receipt does not bind.',
  },
  {
    article: 'Article 13, Regulation (EU) 2024/1689',
    title: 'Transparency and provision of information to deployers',
    supports:
      'Names the model label, the signature algorithms and the public keys, so a deployer can check the origin and integrity of an output independently.',
    limits: 'Does not describe the capabilities, limitations, accuracy or intended purpose of the system.',
  },
  {
    article: 'Article 50, Regulation (EU) 2024/1689',
    title: 'Transparency obligations for providers and deployers of certain AI systems',
    supports: 'A machine-readable, cryptographically verifiable marking that a text was produced by the signing service.',
    limits: 'Holds only while the proof travels with the text. It is not a watermark and cannot be detected in a copied text on its own.',
  },
  {
    article: 'Article 53, Regulation (EU) 2024/1689',
    title: 'Obligations for providers of general-purpose AI models',
    supports: 'Records which model-plane keys attested an output, as one input to technical documentation.',
    limits: 'It is not the technical documentation, summary of training content or copyright policy that the Article requires.',
  },
]);

/**
 * The row a record adds when its proof carries its logging (a tlog-proof that verified).
 *
 * @example
 * ```ts
 * aiActSupport(true).some((row) => row.article === AI_ACT_LOGGING.article); // true: a logged proof adds this row
 * ```
 */
export const AI_ACT_LOGGING: AiActSupportItem = Object.freeze({
  article: 'Article 50(2) and Recital 133, Regulation (EU) 2024/1689',
  title: 'Marking of synthetic content: logging',
  supports:
    "The proof carries a c2sp.org/tlog-proof: the answer's hash is in an append-only transparency log under a signed checkpoint, one of the techniques (logging) Recital 133 names for marking and detecting generated content.",
  limits:
    "Shows that the hash was logged, not that the text is accurate. Whether the log and any witnesses that cosigned it are trusted is the verifier's policy and is not attested here.",
});

// The Code of Practice rows (#34, wire-format s.11): the final Code on transparency of AI-generated
// content (June 2026) names its measures; each row says what this evidence does for one of them,
// including the measure it does nothing for, so silence is never read as support.
const CODE = 'Code of Practice on transparency of AI-generated content (Article 50, Regulation (EU) 2024/1689)';

/**
 * The Code of Practice rows every record of the current edition carries: measure 1.1.1 (metadata)
 * and 1.1.2 (imperceptible watermarks, which this service does not provide).
 *
 * @example
 * ```ts
 * CODE_OF_PRACTICE.map((row) => row.title); // ['Measure 1.1.1: ...', 'Measure 1.1.2: ...']
 * ```
 */
export const CODE_OF_PRACTICE: readonly AiActSupportItem[] = Object.freeze([
  {
    article: `${CODE}, measure 1.1.1`,
    title: 'Measure 1.1.1: signed, time-stamped, tamper-evident metadata',
    supports:
      'The proof is metadata of that kind for this text: signed with post-quantum keys, with the signing time inside the signature, and failing verification if one byte of the text or the metadata changes. Anyone can check it with the public verification endpoint or the open-source core, and the same answer can travel as a SCITT Signed Statement (COSE, RFC 9943).',
    limits:
      "Holds only while the proof travels with the text: a copy without it carries no marking. The signing time is the signer's own clock, not a third-party timestamp.",
  },
  {
    article: `${CODE}, measure 1.1.2`,
    title: 'Measure 1.1.2: imperceptible watermarks',
    supports: 'Not provided. This service embeds nothing in the text; a watermark is applied by the model when it generates.',
    limits: 'Nothing in this record shows whether the text carries a watermark.',
  },
]);

/**
 * Measure 1.1.3 (logging against a registry, optional in the Code) for a record whose proof carries its logging.
 *
 * @example
 * ```ts
 * aiActSupport(true).at(-1)?.supports === CODE_OF_PRACTICE_LOGGED.supports; // true
 * ```
 */
export const CODE_OF_PRACTICE_LOGGED: AiActSupportItem = Object.freeze({
  article: `${CODE}, measure 1.1.3`,
  title: 'Measure 1.1.3: logging against a registry',
  supports:
    "The proof carries an inclusion proof: the answer's hash is in an append-only transparency log, where anyone holding the exact text can look it up without the proof.",
  limits:
    'Lookup is by the exact bytes: an edited, reformatted or translated copy hashes differently and is not found. It is not a fingerprint, and it shows that the hash was logged, not that the text is accurate.',
});

/**
 * Measure 1.1.3 for a record whose proof carries no logging: said so, never left out.
 *
 * @example
 * ```ts
 * aiActSupport(false).at(-1)?.title; // 'Measure 1.1.3: logging against a registry'
 * ```
 */
export const CODE_OF_PRACTICE_UNLOGGED: AiActSupportItem = Object.freeze({
  article: `${CODE}, measure 1.1.3`,
  title: 'Measure 1.1.3: logging against a registry',
  supports:
    'Not shown by this proof: it carries no inclusion proof. A proof issued with its logging (svc issue --logged) shows that its answer is in the ledger.',
  limits: 'Nothing in this record shows whether the text was logged anywhere.',
});

/**
 * An edition of the table: 1 (2025, the Act's articles), 2 (2026, with the Code of Practice rows).
 * A record carries one of them whole; records are made with the newest.
 *
 * @example
 * ```ts
 * const edition: TableEdition = 1; // what records made before 2026 carry
 * ```
 */
export type TableEdition = 1 | 2;

/**
 * Every edition a verifier accepts, oldest first.
 *
 * @example
 * ```ts
 * TABLE_EDITIONS.map((e) => aiActSupport(false, e).length); // [4, 7]
 * ```
 */
export const TABLE_EDITIONS: readonly TableEdition[] = [1, 2];

/**
 * The mapping a record publishes: the table, and the logging rows when its proof is logged. The
 * default is the current edition; an older one is what records made before it carry.
 *
 * @example
 * ```ts
 * aiActSupport(true).length; // the table with its logging rows, for a proof logged in a transparency log
 * aiActSupport(false, 1); // the 2025 edition, without the Code of Practice rows
 * ```
 */
export function aiActSupport(logged: boolean, edition: TableEdition = 2): AiActSupportItem[] {
  const rows = [...AI_ACT_SUPPORT, ...(logged ? [AI_ACT_LOGGING] : [])];
  if (edition >= 2) rows.push(...CODE_OF_PRACTICE, logged ? CODE_OF_PRACTICE_LOGGED : CODE_OF_PRACTICE_UNLOGGED);
  return rows.map((x) => ({ ...x }));
}
