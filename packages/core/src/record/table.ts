// The published obligation mapping (wire-format s.11). Illustrative and factual: it says what the
// evidence can support and where it stops, and never that anything is compliant or certified.

export interface AiActSupportItem {
  article: string;
  title: string;
  supports: string;
  limits: string;
}

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
