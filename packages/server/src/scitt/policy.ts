// The registration policy (RFC 9943's, for this service): whose Signed Statements the log takes,
// and where their signatures are checked: in the server's verification pool, many statements a
// task, or on the calling thread where there is no pool (svc issue, tests).
import { readFileSync } from 'node:fs';
import { nobleBackend, type Names } from '@svc/core';
import { concatBytes } from '@svc/core/primitives';
import { coseKey, readCoseKeySet } from '@svc/core/envelope';
import { readScittKey, type RegistrationPolicy } from '@svc/core/scitt';
import type { Config } from '../config.js';
import { nativeCrypto } from '../crypto/node.js';
import type { Keyring } from '../keys/keyring.js';
import { LedgerError } from '../ledger/errors.js';
import type { Executor } from '../pool/pool.js';
import { statementChecks, type StatementCheck } from '../pool/tasks.js';

/** Statements checked together go in groups of at most this many (one task of the pool each). */
export const STATEMENTS_TOGETHER = 256;

/** Checks statements under the registration policy, in the order given: inline, or in the verification pool. */
export type StatementChecker = (statements: readonly Uint8Array[]) => Promise<StatementCheck[]>;

/**
 * Statement checks in the server's verification pool: many statements a task, off the event loop
 * that answers everyone else. A pool that is full refuses as the ledger does when busy (503).
 */
export function poolStatementChecker(executor: Pick<Executor, 'run'>): StatementChecker {
  return async (statements) => {
    const r = await executor.run({ op: 'statements', body: concatBytes(...statements), lengths: statements.map((b) => b.length) });
    if (r.ok) return JSON.parse(r.json) as StatementCheck[];
    if (r.code === 'unavailable')
      throw new LedgerError(
        'unavailable',
        `statements cannot be checked now: ${r.message}`,
        r.retryAfter !== undefined ? { retryAfter: r.retryAfter } : {},
      );
    throw new Error(r.message);
  };
}

/**
 * The registration policy, read once: the answer keys (current and retired) are the service's own
 * and alone may claim its identity (iss, the `urn:<service>:answer:` subjects, its statement typ);
 * the keys of SVC_SCITT_ISSUERS may register any other claims.
 */
export function scittPolicy(cfg: Config, ring: Keyring, names: Names): RegistrationPolicy {
  const read = (keys: unknown[]) => keys.map(readScittKey).filter((k) => k !== null);
  return {
    service: read(ring.publicKeys('answer').map((pk) => coseKey('ML-DSA-87', pk))),
    listed: read(listedIssuers(cfg)),
    reserved: {
      iss: names.service,
      subPrefix: `urn:${names.service}:answer:`,
      typ: `application/vnd.${names.service}.answer-statement+cose`,
    },
  };
}

/** The keys of SVC_SCITT_ISSUERS: a JWK Set, or a COSE_KeySet. */
function listedIssuers(cfg: Config): unknown[] {
  if (!cfg.scittIssuers) return [];
  const raw = readFileSync(cfg.scittIssuers);
  if (raw[0] === 0x7b) {
    const jwks = JSON.parse(raw.toString('utf8')) as { keys?: unknown };
    if (!Array.isArray(jwks.keys)) throw new Error(`${cfg.scittIssuers}: a JWK Set has a keys array`);
    return jwks.keys;
  }
  return readCoseKeySet(new Uint8Array(raw));
}

/** Statement checks on the calling thread; ML-DSA-87 statements by OpenSSL where Node has it (about 12x noble). */
export function inlineStatementChecker(policy: RegistrationPolicy): StatementChecker {
  const check = statementChecks(policy, nativeCrypto() ?? nobleBackend);
  return async (statements) => statements.map(check);
}
