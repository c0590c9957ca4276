// What a case of test-vectors/*.json (and of test-vectors/kept/) is, the options it is verified
// with, and the part of an answer its intent speaks of: one reading for the replayed vectors
// (vectors.test.ts) and the kept documents (kept.test.ts).
import type { VerifyOptions } from '../src/verify/context.js';
import type { BridgeKey, ReceiptKey } from '../src/wire/keys.js';
import { logPolicy } from '../src/tlog/index.js';
import { envelopeChecker } from '../src/envelope/receipt.js';

export interface Intent {
  overallOk?: boolean;
  signerRecognized?: boolean;
  promptUnverified?: true;
  keyRecognized?: boolean;
  logOk?: boolean;
  quorumMet?: boolean | null;
  witnesses?: number;
  status?: number;
  code?: string;
}

export interface Case {
  description: string;
  intent: Intent;
  trustedBridgeKeys?: BridgeKey[];
  trustedEnvelopeKeys?: { algo: string; public_key_hex: string }[];
  logPolicy?: string;
  /** Replayed with envelopes: envelopeChecker. */
  checkEnvelopes?: boolean;
  input?: unknown;
  inputText?: string;
  service?: string;
  trustedKeys: ReceiptKey[];
  /** The recorded answer (test-vectors/*.json only; a kept case has none). */
  expected?: { status: number; response?: unknown; code?: string };
}

/** The options a case is verified with. */
export function optionsOf(c: Case): VerifyOptions {
  return {
    trustedKeys: c.trustedKeys,
    trustedBridgeKeys: c.trustedBridgeKeys,
    trustedEnvelopeKeys: c.trustedEnvelopeKeys as VerifyOptions['trustedEnvelopeKeys'],
    ...(c.logPolicy ? { logPolicy: logPolicy(c.logPolicy) } : {}),
    ...(c.checkEnvelopes ? { envelopes: envelopeChecker } : {}),
    service: c.service,
  };
}

/** A member of recorded JSON by path (undefined where absent), read without a cast. */
const at = (x: unknown, ...path: string[]): unknown =>
  path.reduce<unknown>((o, k) => (o !== null && typeof o === 'object' ? (o as Record<string, unknown>)[k] : undefined), x);

/** What an answer says of the members `intent` names: equal to the intent when the case holds. */
export function intentOf(response: unknown, intent: Intent): Intent {
  return {
    overallOk: at(response, 'verdict', 'overallOk') as boolean,
    signerRecognized: at(response, 'signerRecognized') as boolean,
    ...('promptUnverified' in intent ? { promptUnverified: at(response, 'verdict', 'promptUnverified') as true } : {}),
    ...('logOk' in intent ? { logOk: at(response, 'verdict', 'log', 'ok') as boolean } : {}),
    ...('quorumMet' in intent ? { quorumMet: at(response, 'verdict', 'log', 'quorumMet') as boolean | null } : {}),
    ...('witnesses' in intent ? { witnesses: at(response, 'verdict', 'log', 'witnesses') as number } : {}),
    ...('keyRecognized' in intent
      ? {
          keyRecognized: (at(response, 'verdict', 'bridge', 'keyRecognized') ??
            at(response, 'verdict', 'receipt', 'diversity', 'keyRecognized')) as boolean,
        }
      : {}),
  };
}
