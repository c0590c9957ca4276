// The ledger as a SCITT Transparency Service (RFC 9943): registration under a policy, and RFC 9942
// receipts for the same signed (and, with a witness policy, witnessed) heads the C2SP checkpoint
// publishes: one history, never two. A statement's leaf entry is the SHA-256 of its registered
// form, 32 bytes like an answer hash; it can never be an answer's: a statement's bytes are never
// UTF-8 text (its CWT claims key 15, the byte 0x0f, is followed by a map header, 0xa0-0xbb, which
// only continues a UTF-8 sequence; wire-format s.13). The log stays hashes only.
import type { Names } from '@svc/core';
import { fromHex, textSha256, toBase64Url, toHex } from '@svc/core/primitives';
import { rootFromInclusionProof } from '@svc/core/merkle';
import { coseKey, coseKeySet, coseKeyThumbprint, cborEncode, mlDsa87Signer, type EnvelopeAlg } from '@svc/core/envelope';
import { logKeySigner, receiptMaker, signStatement, withReceipts, type ScittErrorCode } from '@svc/core/scitt';
import { parseCheckpoint, parseNote } from '@svc/core/tlog';
import type { Config } from '../config.js';
import type { Keyring, LogRole } from '../keys/keyring.js';
import type { LedgerApi } from '../ledger/api.js';
import { LedgerError } from '../ledger/errors.js';
import { logOrigin } from '../tlog/checkpoints.js';
import { nativeHasher } from '../ledger/hasher.js';
import { coalesced } from '../util/coalesce.js';
import { inlineStatementChecker, scittPolicy, STATEMENTS_TOGETHER, type StatementChecker } from './policy.js';

/** Statements are small (ours ~4.8 KB): a bound far below the body limit keeps the log from being storage. */
export const MAX_STATEMENT_BYTES = 64 * 1024;

/** Lookups and paths asked for together are read in groups of at most this many (a batch's registrations). */
const READ_TOGETHER = 1024;

/** Receipt algorithms, by the log key that signs each. */
export const RECEIPT_ALGS = { 'ML-DSA-44': 'log-mldsa44', Ed25519: 'log-ed25519' } as const satisfies Partial<Record<EnvelopeAlg, LogRole>>;
export type ReceiptAlg = keyof typeof RECEIPT_ALGS;

/** Why registration refused a statement, with SCRAPI's title for it. */
export class RegistrationRefused extends Error {
  constructor(
    readonly title: 'Malformed request' | 'Bad Signature Algorithm' | 'Payload Missing' | 'Rejected',
    message: string,
  ) {
    super(message);
  }
}

const TITLES: Partial<Record<ScittErrorCode, RegistrationRefused['title']>> = {
  unsupported_alg: 'Bad Signature Algorithm',
  payload_missing: 'Payload Missing',
  unknown_key: 'Rejected',
  bad_statement_signature: 'Rejected',
  not_allowed: 'Rejected',
};

export type Registered = { id: string; receipt: Uint8Array } | { id: string; pending: true };

export interface ScittService {
  /** Verify under the registration policy, append (once), and return the receipt when a published head covers it. */
  register(statement: Uint8Array, waitMs?: number): Promise<Registered>;
  /** The receipt of an entry at the published head; 'pending' while no published head covers it; LedgerError('not_found') if unknown. */
  receipt(id: string, alg: ReceiptAlg): Promise<Uint8Array | 'pending'>;
  /** The statement with every receipt algorithm's receipt (a Transparent Statement), once covered. */
  transparent(statement: Uint8Array, waitMs?: number): Promise<Uint8Array>;
  keySet(): Uint8Array;
  key(kid: string): Uint8Array | null;
  configuration(): Uint8Array;
  algs(): ReceiptAlg[];
}

/** The log's receipt keys (current and retired) as the verification pool takes them. */
export function scittLogKeys(cfg: Pick<Config, 'logEd25519'>, ring: Keyring): { alg: ReceiptAlg; publicKeyHex: string }[] {
  return (Object.keys(RECEIPT_ALGS) as ReceiptAlg[])
    .filter((a) => a !== 'Ed25519' || cfg.logEd25519)
    .flatMap((a) => ring.publicKeys(RECEIPT_ALGS[a]).map((pk) => ({ alg: a, publicKeyHex: toHex(pk) })));
}

/**
 * The service's own Signed Statement about an answer: a hash envelope of its text, signed with the
 * answer key, subject `urn:<service>:answer:<sha256 hex>`.
 */
export function answerStatement(ring: Keyring, names: Names, answer: string, iat: number): Uint8Array {
  const h = textSha256(answer);
  if (!h) throw new TypeError('the answer has no exact UTF-8 form');
  return signStatement(
    {
      answerSha256: h,
      iss: names.service,
      sub: `urn:${names.service}:answer:${toHex(h)}`,
      iat,
      typ: `application/vnd.${names.service}.answer-statement+cose`,
    },
    mlDsa87Signer(ring.get('answer')),
  );
}

export function scittService(
  cfg: Config,
  names: Names,
  ring: Keyring,
  ledger: Pick<LedgerApi, 'append' | 'paths' | 'findAll' | 'checkpoint'>,
  now: () => number = Date.now,
  checker?: StatementChecker,
): ScittService {
  // Without a pool, statements are checked on this thread.
  const check = checker ?? inlineStatementChecker(scittPolicy(cfg, ring, names));
  const origin = logOrigin(cfg, names);
  const algs = (Object.keys(RECEIPT_ALGS) as ReceiptAlg[]).filter((a) => a !== 'Ed25519' || cfg.logEd25519);
  // The header is encoded once per key and the signature made once per head (receiptMaker).
  const makers = new Map(algs.map((a) => [a, receiptMaker(logKeySigner(ring.logKey(RECEIPT_ALGS[a])), origin)]));
  const published = algs.flatMap((a) => ring.publicKeys(RECEIPT_ALGS[a]).map((pk) => coseKey(a, pk)));
  const byKid = new Map(
    algs.flatMap((a) => ring.publicKeys(RECEIPT_ALGS[a]).map((pk) => [toBase64Url(coseKeyThumbprint(a, pk)), cborEncode(coseKey(a, pk))])),
  );
  // Receipts are deterministic for a head: kept for the head they were made at.
  const cache = new Map<string, Uint8Array>();

  // WF-SCITT-HEAD
  // Registrations arriving together share one read of the published checkpoint (a 50 ms window).
  let head: { at: number; cp: Promise<ReturnType<typeof parseCheckpoint>> } | null = null;
  const publishedHead = () => {
    if (!head || now() - head.at > 50) {
      const cp = ledger.checkpoint().then((n) => parseCheckpoint(parseNote(n).text));
      head = { at: now(), cp };
      cp.catch(() => (head = null));
    }
    return head.cp;
  };

  // Statements offered together are checked together: with the pool, one hop for many. Their
  // entries are looked up together too: one store read (one crossing to the storage process).
  const checked = coalesced(check, STATEMENTS_TOGETHER);
  const find = coalesced((entries: Uint8Array[]) => ledger.findAll(entries), READ_TOGETHER);

  // Registrations covered by the same head ask for their paths together: one read of the subtrees
  // they share (one store crossing), where each read its own.
  const pathAt = coalesced(async (asked: { index: number; size: number }[]) => {
    const sizes = [...new Set(asked.map((a) => a.size))];
    const read = await Promise.all(
      sizes.map((size) =>
        ledger.paths(
          asked.filter((a) => a.size === size).map((a) => a.index),
          size,
        ),
      ),
    );
    const next = sizes.map(() => 0);
    return asked.map((a) => {
      const k = sizes.indexOf(a.size);
      return read[k]![next[k]!++]!;
    });
  }, READ_TOGETHER);

  /** The entry's proof at the published head when that head covers its index; else null. */
  async function proofAt(
    entry: Uint8Array,
    index: number,
  ): Promise<{ index: number; size: number; path: Uint8Array[]; root: Uint8Array } | null> {
    const cp = await publishedHead();
    if (cp.size <= index) return null;
    const path = await pathAt({ index, size: cp.size });
    // The path is checked against the checkpoint's root: the one the receipt will sign.
    const root = rootFromInclusionProof(index, cp.size, nativeHasher.leaf(entry), path, nativeHasher.node);
    if (!root || toHex(root) !== toHex(cp.root)) throw new LedgerError('unavailable', 'the published checkpoint and the tree disagree');
    return { index, size: cp.size, path, root: cp.root };
  }

  type Proof = NonNullable<Awaited<ReturnType<typeof proofAt>>>;

  /** The receipt of a proof at a published head, made once per entry, head and algorithm. */
  function receiptOf(id: string, alg: ReceiptAlg, p: Proof): Uint8Array {
    const make = makers.get(alg);
    if (!make) throw new LedgerError('not_found', `this log signs no ${alg} receipts`);
    const key = `${id}:${p.size}:${alg}`;
    let r = cache.get(key);
    if (!r) {
      r = make(p);
      if (cache.size >= 1024) cache.delete(cache.keys().next().value!);
      cache.set(key, r);
    }
    return r;
  }

  async function receipt(id: string, alg: ReceiptAlg): Promise<Uint8Array | 'pending'> {
    if (!makers.has(alg)) throw new LedgerError('not_found', `this log signs no ${alg} receipts`);
    const entry = fromHex(id, 32)!;
    const index = await find(entry);
    if (typeof index !== 'number') throw new LedgerError('not_found', 'no entry with this id');
    const p = await proofAt(entry, index);
    return p ? receiptOf(id, alg, p) : 'pending';
  }

  // Registrations waiting for a published head to cover them share one read of the checkpoint every
  // 100 ms while any waits, where each polled on a timer of its own.
  const waiting = new Set<{ index: number; deadline: number; resolve: (covered: boolean) => void; reject: (e: unknown) => void }>();
  let poll: ReturnType<typeof setTimeout> | null = null;
  const pollHead = () => {
    poll = null;
    publishedHead()
      .then(
        (cp) => {
          const t = now();
          for (const w of waiting)
            if (cp.size > w.index || t >= w.deadline) {
              waiting.delete(w);
              w.resolve(cp.size > w.index);
            }
        },
        (e: unknown) => {
          for (const w of waiting) w.reject(e);
          waiting.clear();
        },
      )
      .finally(() => {
        if (waiting.size > 0 && !poll) poll = setTimeout(pollHead, 100);
      });
  };

  /** Whether a published head covers `index`, waiting until `deadline` for one that does. */
  async function covers(index: number, deadline: number): Promise<boolean> {
    if ((await publishedHead()).size > index) return true;
    if (now() >= deadline) return false;
    return new Promise<boolean>((resolve, reject) => {
      waiting.add({ index, deadline, resolve, reject });
      if (!poll) poll = setTimeout(pollHead, 100);
    });
  }

  /** Verify under the policy and append once; the entry id and, when covered in time, its proof. */
  async function admit(statement: Uint8Array, waitMs: number): Promise<{ id: string; proof: Proof | null }> {
    // The wait counts from the statement's arrival: checking and appending spend it, never add to it.
    const deadline = now() + Math.max(0, waitMs);
    if (statement.length > MAX_STATEMENT_BYTES) throw new RegistrationRefused('Rejected', `a statement over ${MAX_STATEMENT_BYTES} bytes`);
    const v = await checked(statement);
    if (!v.ok) throw new RegistrationRefused(TITLES[v.error!] ?? 'Malformed request', `${v.error}: ${v.detail}`);
    const id = v.leaf;
    // A statement registered again is the same entry: repeats never grow the log.
    const entry = fromHex(id, 32)!;
    const index = (await find(entry)) ?? (await ledger.append([entry])).firstIndex;
    return { id, proof: (await covers(index, deadline)) ? await proofAt(entry, index) : null };
  }

  async function register(statement: Uint8Array, waitMs = 2_000): Promise<Registered> {
    const { id, proof } = await admit(statement, waitMs);
    return proof ? { id, receipt: receiptOf(id, algs[0]!, proof) } : { id, pending: true };
  }

  return {
    register,
    receipt,
    async transparent(statement, waitMs = 10_000) {
      const { id, proof } = await admit(statement, waitMs);
      if (!proof) throw new LedgerError('unavailable', `no published checkpoint covered the statement within ${waitMs} ms`);
      return withReceipts(
        statement,
        algs.map((a) => receiptOf(id, a, proof)),
      );
    },
    keySet: () => coseKeySet(published),
    key: (kid) => byKid.get(kid) ?? null,
    configuration: () =>
      cborEncode(
        new Map<string, unknown>([
          ['issuer', origin],
          ['scitt_keys_uri', '/.well-known/scitt-keys'],
          ['registration_uri', '/entries'],
          ['vds', 1],
          ['receipt_algorithms', algs.map((a) => (a === 'Ed25519' ? -8 : -48))],
        ]),
      ),
    algs: () => algs,
  };
}
