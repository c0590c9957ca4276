// The CPU-bound work the pool runs, kept as plain functions so they run the same in a worker
// thread or inline. A result crosses back as JSON text, never as an object graph: a hostile
// document nested thousands deep would overflow the receiving thread's structured-clone reader.
import {
  nobleBackend,
  parseDocument,
  SvcError,
  verifyBundle,
  type SvcErrorCode,
  type CryptoBackend,
  type LogPolicyChecker,
  type ReceiptKey,
  type ScittBundleChecker,
} from '@svc/core';
import { fromHex, syncVerifier } from '@svc/core/primitives';
import type { BridgeKey } from '@svc/core/issue';
import { buildRecord } from '@svc/core/record';
import { checkRegistration, scittChecker, type RegistrationPolicy, type ScittErrorCode } from '@svc/core/scitt';
import { coseKeyThumbprint, envelopeChecker } from '@svc/core/envelope';
import { logPolicy } from '@svc/core/tlog';
import { opensslClassical } from '../crypto/classical.js';
import { LedgerError } from '../ledger/errors.js';
import { normalInclusionRequest } from '../ledger/inclusion-request.js';

export interface PoolSettings {
  service: string;
  trustedKeys: ReceiptKey[];
  /** The model-plane keys this server publishes: attestations by others are not counted as its own. */
  trustedBridgeKeys?: BridgeKey[];
  /** The Ed25519 envelope keys this server signs with: another key's envelope is keyRecognized false. */
  trustedEnvelopeKeys?: { algo: 'Ed25519'; public_key_hex: string }[];
  /**
   * A c2sp.org/tlog-policy text judging a proof's `tlogProof` checkpoint: the server's own log keys
   * (and its witness policy, when it has one). A checkpoint naming this log with a line that fails
   * fails the proof; one this log never signed is not recognised. Text, so it crosses to workers.
   */
  logPolicy?: string;
  /** The log's receipt keys (hex): a proof's SCITT statement (`scitt`) is checked against them. */
  scittLogKeys?: { alg: 'ML-DSA-44' | 'Ed25519'; publicKeyHex: string }[];
  /** The SCITT registration policy: statements (op 'statements') are checked under it. */
  scittPolicy?: RegistrationPolicy;
}

let scitt: { keys: string; checker: ScittBundleChecker } | null = null;
/** The SCITT checker of a settings' log keys, made once per thread. */
function scittOf(s: PoolSettings): { scitt?: ScittBundleChecker } {
  if (!s.scittLogKeys?.length) return {};
  const id = JSON.stringify(s.scittLogKeys);
  if (scitt?.keys !== id) {
    // Each key carries its kid (its COSE thumbprint, what this log's receipts name): a receipt of
    // another log is set aside as unknown, never checked against this log's key (root_not_signed).
    const keys = s.scittLogKeys.map((k) => {
      const publicKey = fromHex(k.publicKeyHex)!;
      return { alg: k.alg, publicKey, kid: coseKeyThumbprint(k.alg, publicKey) };
    });
    scitt = { keys: id, checker: scittChecker({ logs: [{ keys }] }) };
  }
  return { scitt: scitt.checker };
}

const checkers = new Map<string, LogPolicyChecker>();
/** The policy checker of a settings' text, made once per thread. */
function checkerOf(s: PoolSettings): { logPolicy?: LogPolicyChecker } {
  if (!s.logPolicy) return {};
  let c = checkers.get(s.logPolicy);
  if (!c) {
    c = logPolicy(s.logPolicy);
    checkers.set(s.logPolicy, c);
  }
  return { logPolicy: c };
}

export type Task =
  | { op: 'verify'; body: Uint8Array }
  | { op: 'evidence'; body: Uint8Array; org?: string; generated: number }
  // An inclusion request read to its small normal form: a 2 MB body of 70,000 members is parsed
  // here, never on the event loop that answers everyone else.
  | { op: 'inclusion'; body: Uint8Array }
  // SCITT Signed Statements offered for registration together, end to end in one body: one hop
  // for many checks (an Ed25519 check is about 100 us, the hop about as much).
  | { op: 'statements'; body: Uint8Array; lengths: readonly number[] };

/** A statement's check under the registration policy: its verdict without the payload. */
export interface StatementCheck {
  ok: boolean;
  leaf: string;
  error?: ScittErrorCode;
  detail?: string;
}

/** Check each statement of a 'statements' task under the registration policy. */
function checkStatements(
  task: { body: Uint8Array; lengths: readonly number[] },
  policy: RegistrationPolicy,
  crypto: CryptoBackend,
): StatementCheck[] {
  const total = task.lengths.reduce((a, n) => (Number.isSafeInteger(n) && n >= 0 ? a + n : Number.NaN), 0);
  // Only this server sends the task: lengths that do not cut the body exactly are its own fault.
  if (total !== task.body.length) throw new TypeError('statement lengths do not add up to the body');
  const check = statementChecks(policy, crypto);
  let at = 0;
  return task.lengths.map((n) => {
    const statement = task.body.subarray(at, at + n);
    at += n;
    return check(statement);
  });
}

const NO_ISSUERS: RegistrationPolicy = { service: [], listed: [], reserved: { iss: '', subPrefix: '\u0000', typ: '' } };

/** One statement's check under the policy, on this thread: the one definition the pool and the inline checker share. */
export function statementChecks(policy: RegistrationPolicy, crypto: CryptoBackend): (statement: Uint8Array) => StatementCheck {
  const compute = crypto.sync ? syncVerifier(crypto) : undefined;
  return (statement) => {
    const v = checkRegistration(statement, policy, { compute, classical: opensslClassical });
    return { ok: v.ok, leaf: v.leaf, ...(v.error ? { error: v.error } : {}), ...(v.detail ? { detail: v.detail } : {}) };
  };
}

/**
 * Why a task has no result: the core refused the document (its code), the pool is overloaded
 * (`unavailable`, with seconds to wait), or the server failed (`internal`: a worker that threw or
 * died, a reply that could not cross back). Only the edges turn these into statuses.
 */
export type TaskFailure = SvcErrorCode | 'unavailable' | 'internal';

export type TaskResult = { ok: true; json: string } | { ok: false; code: TaskFailure; message: string; retryAfter?: number };

/** Run one task; `crypto` is the synchronous backend of this thread (node:crypto or noble). */
export async function runTask(task: Task, s: PoolSettings, crypto: CryptoBackend = nobleBackend): Promise<TaskResult> {
  let value: unknown;
  try {
    if (task.op === 'verify')
      value = await verifyBundle(task.body, {
        trustedKeys: s.trustedKeys,
        trustedBridgeKeys: s.trustedBridgeKeys,
        trustedEnvelopeKeys: s.trustedEnvelopeKeys,
        service: s.service,
        crypto,
        envelopes: envelopeChecker,
        ...checkerOf(s),
        ...scittOf(s),
      });
    else if (task.op === 'inclusion') value = normalInclusionRequest(parseDocument(task.body));
    else if (task.op === 'statements') value = checkStatements(task, s.scittPolicy ?? NO_ISSUERS, crypto);
    else
      value = buildRecord(parseDocument(task.body), {
        trustedKeys: s.trustedKeys,
        trustedBridgeKeys: s.trustedBridgeKeys,
        service: s.service,
        generated: task.generated,
        org: task.org,
        crypto,
        envelopes: envelopeChecker,
        ...checkerOf(s),
        ...scittOf(s),
      });
  } catch (e) {
    if (e instanceof SvcError) return { ok: false, code: e.code, message: e.message };
    // The inclusion request's reader is the ledger's; its only refusal is a malformed request.
    if (e instanceof LedgerError && e.code === 'invalid_request') return { ok: false, code: e.code, message: e.message };
    throw e;
  }
  // A verdict never embeds the document, and a record refuses one nested past the depth guard, so
  // the text is at most a few levels deeper than any document the core accepts.
  return { ok: true, json: JSON.stringify(value) };
}

// Members that stand for signatures, and how many each can hold: a native "sig"; a JWS
// "signature"; a receipt's "cose" array (at most 4 COSE_Sign1s); a "scitt" Transparent Statement
// (the statement and the receipts of the log's two keys). Envelopes and SCITT layers hold most of
// a turn's signatures without a "sig" member, and counting "sig" alone priced such a transcript at
// about a third of its checks.
const SIGNATURE_MEMBERS: readonly (readonly [Uint8Array, number])[] = [
  [new TextEncoder().encode('"sig"'), 1],
  [new TextEncoder().encode('"signature"'), 1],
  [new TextEncoder().encode('"cose"'), 4],
  [new TextEncoder().encode('"scitt"'), 3],
];

// Bytes a signed layer takes at least on the wire (an ML-DSA-87 signature alone is 9,254 hex
// characters and its key 5,184): the floor of the estimate for bodies that hide their members.
const BYTES_PER_LAYER = 16_384;

/**
 * What a task will cost, in signatures to check. A statement batch by its size: a signature's cost
 * follows its length (an ML-DSA-87 statement, about 4.8 KB, is one; an Ed25519 one, about 200
 * bytes and a twentieth of the time, a twentieth), so a queue of small statements is not refused
 * as if each were a proof. A document by its body.
 */
export function taskCost(task: Task): number {
  return task.op === 'statements' ? Math.max(1, Math.ceil(task.body.length / STATEMENT_BYTES_PER_COST)) : estimateCost(task.body);
}

const STATEMENT_BYTES_PER_COST = 4096;

/**
 * What a task will cost, in signatures to check, read from the raw body without parsing it: every
 * signature the wire format defines sits in a member named "sig", "signature", "cose" or "scitt"
 * (weighted by the signatures each can hold). A body that spells those names with escapes still
 * pays by its size, so its true cost is at most a few times the estimate.
 */
export function estimateCost(body: Uint8Array): number {
  let n = 1;
  for (let i = body.indexOf(0x22); i >= 0; i = body.indexOf(0x22, i + 1))
    for (const [name, weight] of SIGNATURE_MEMBERS) {
      if (i + name.length > body.length) continue;
      let k = 1;
      while (k < name.length && body[i + k] === name[k]) k++;
      if (k === name.length) n += weight;
    }
  return Math.max(n, Math.ceil(body.length / BYTES_PER_LAYER));
}
