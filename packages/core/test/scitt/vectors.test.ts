// The scitt-cose cross-implementation vectors (the IETF SCITT examples), read by our core: the same
// verdict, the same failure for the same reason, and the same leaf entry, index, size, path and
// reconstructed root. Keys come from the PEM files through WebCrypto, a reader we did not write.
import { describe, expect, it } from 'vitest';
import { fromHex, sha256, toHex } from '@svc/core/primitives';
import { VDS, verifyReceipt, verifyStatement, verifyTransparentStatement, withReceipts, type ScittErrorCode } from '@svc/core/scitt';
import { scittCose } from '../vectors-fs.js';

// Their failure codes, and ours for the same condition.
const FAILURES: Record<string, ScittErrorCode> = {
  BAD_STATEMENT_SIGNATURE: 'bad_statement_signature',
  TAMPERED_INCLUSION_PATH: 'root_not_signed',
  UNSUPPORTED_VDS: 'unsupported_vds',
};

async function jwkOfPem(pem: string): Promise<JsonWebKey> {
  const der = Uint8Array.from(atob(pem.replace(/-----[^-]+-----|\s/g, '')), (c) => c.charCodeAt(0));
  for (const alg of [{ name: 'Ed25519' }, { name: 'ECDSA', namedCurve: 'P-256' }, { name: 'ECDSA', namedCurve: 'P-384' }]) {
    try {
      const key = await crypto.subtle.importKey('spki', der, alg, true, ['verify']);
      return await crypto.subtle.exportKey('jwk', key);
    } catch {
      // not this algorithm
    }
  }
  throw new Error('a PEM key of no algorithm WebCrypto knows here');
}

type Vector = (typeof scittCose.vectors)[number];
// The log a verifier trusts for each vector: the scitt-cose test log writes vds 1 receipts; the
// CCF ledger writes vds 2. The vds is part of the log's identity, never read from the receipt alone.
const logVds = (v: Vector) => (v.id === 'valid-ccf-vds2' ? VDS.CCF_LEDGER_SHA256 : VDS.RFC9162_SHA256);

describe('scitt-cose vectors', () => {
  it('are all here', () => {
    expect(scittCose.vectors.map((v) => v.id).sort()).toEqual(
      ['fail-bad-statement-sig', 'fail-tampered-path', 'fail-unsupported-vds', 'valid-ccf-vds2', 'valid-eddsa', 'valid-es256'].sort(),
    );
  });

  it.each(scittCose.vectors.map((v) => [v.id, v] as const))('%s: the verdict, the reason and every intermediate value', async (_id, v) => {
    const e = v.expected;
    const statement = fromHex(v.statement)!;
    const receipt = fromHex(v.receipt)!;
    const issuer = await jwkOfPem(v.issuerKey);
    const log = { keys: [await jwkOfPem(v.logKey)], vds: logVds(v) };
    expect(toHex(sha256(fromHex(v.payload)!))).toBe(e.payload_sha256);

    const s = verifyStatement(statement, [issuer]);
    expect(s.leaf).toBe(e.leaf_entry);
    expect(s.ok).toBe(e.statement_signature_valid);
    expect(s.alg).toBe(e.protected_header.statement.alg === 'EdDSA' ? 'Ed25519' : e.protected_header.statement.alg);
    expect(s.iss).toBe(e.protected_header.statement.issuer);
    if (e.protected_header.statement.subject !== null) expect(s.sub).toBe(e.protected_header.statement.subject);
    expect(s.contentType).toBe(e.protected_header.statement.content_type);
    if (s.ok) expect(toHex(s.payload!)).toBe(v.payload);

    const r = verifyReceipt(receipt, fromHex(e.leaf_entry, 32)!, log);
    expect(r.ok).toBe(e.receipt_valid);
    expect(r.vds).toBe(e.protected_header.receipt.vds);
    expect(r.root ?? null).toBe(e.reconstructed_root);
    if (r.vds === VDS.RFC9162_SHA256 && r.error !== 'unsupported_vds') {
      expect(r.index).toBe(e.leaf_index);
      expect(r.size).toBe(e.tree_size);
      expect(r.path).toEqual(e.inclusion_path);
    } else {
      // Unread: a proof is interpreted only under the vds its log uses.
      expect(r.index).toBeUndefined();
    }

    // The same two, as the Transparent Statement a registration returns.
    const t = verifyTransparentStatement(withReceipts(statement, [receipt]), { issuers: [issuer], logs: [log] });
    expect(t.ok).toBe(e.result === 'VALID');
    expect(t.statement.leaf).toBe(e.leaf_entry);
    if (e.result === 'INVALID') expect(t.error).toBe(FAILURES[e.failure_code!]);
    else expect(t.error).toBeUndefined();
  });

  it('a receipt is judged under its log, not its own claim: the vds 1 log refuses a vds 2 receipt, and the reverse', async () => {
    const ccf = scittCose.vectors.find((v) => v.id === 'valid-ccf-vds2')!;
    const eddsa = scittCose.vectors.find((v) => v.id === 'valid-eddsa')!;
    const ccfLog = { keys: [await jwkOfPem(ccf.logKey)] };
    expect(verifyReceipt(fromHex(ccf.receipt)!, fromHex(ccf.expected.leaf_entry, 32)!, ccfLog).error).toBe('unsupported_vds');
    const edLog = { keys: [await jwkOfPem(eddsa.logKey)], vds: VDS.CCF_LEDGER_SHA256 };
    expect(verifyReceipt(fromHex(eddsa.receipt)!, fromHex(eddsa.expected.leaf_entry, 32)!, edLog).error).toBe('unsupported_vds');
  });

  it("a receipt for another statement's leaf, or under another log's key, fails", async () => {
    const a = scittCose.vectors.find((v) => v.id === 'valid-eddsa')!;
    const b = scittCose.vectors.find((v) => v.id === 'valid-es256')!;
    const logA = { keys: [await jwkOfPem(a.logKey)] };
    expect(verifyReceipt(fromHex(a.receipt)!, fromHex(b.expected.leaf_entry, 32)!, logA).error).toBe('root_not_signed');
    expect(verifyReceipt(fromHex(a.receipt)!, fromHex(a.expected.leaf_entry, 32)!, { keys: [await jwkOfPem(b.logKey)] }).error).toBe(
      'unknown_key',
    );
    const ccf = scittCose.vectors.find((v) => v.id === 'valid-ccf-vds2')!;
    const ccfLog = { keys: [await jwkOfPem(ccf.logKey)], vds: VDS.CCF_LEDGER_SHA256 };
    expect(verifyReceipt(fromHex(ccf.receipt)!, fromHex(a.expected.leaf_entry, 32)!, ccfLog).error).toBe('leaf_mismatch');
  });
});
