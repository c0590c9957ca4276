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

/**
 * The mapping a record publishes: the table, and the logging row when its proof is logged.
 *
 * @example
 * ```ts
 * aiActSupport(true).length; // the table with the logging row, for a proof logged in a transparency log
 * ```
 */
export function aiActSupport(logged: boolean): AiActSupportItem[] {
  return [...AI_ACT_SUPPORT, ...(logged ? [AI_ACT_LOGGING] : [])].map((x) => ({ ...x }));
}
