// A function handed its input in the wrong form throws a typed error naming the call that makes
// the right one (#44 row 3), where it used to report a signature as unknown or a document as
// malformed: raw COSE_KeySet bytes, a JWK Set where its keys array goes, base64url text where
// COSE bytes go. Documents of any other form stay verdicts.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SvcError } from '../../src/index.js';
import { verifyCose1, verifyJws } from '../../src/envelope/index.js';
import { scittChecker, verifyReceipt, verifyStatement, verifyTransparentStatement } from '../../src/scitt/index.js';

const keySetBytes = new Uint8Array([0x81, 0xa1, 0x01, 0x01]);
const jwkSet = { keys: [{ kty: 'OKP', crv: 'Ed25519', x: 'AAAA' }] };

function refusedNaming(f: () => unknown, call: RegExp) {
  try {
    f();
  } catch (e) {
    expect(e).toBeInstanceOf(SvcError);
    expect((e as SvcError).code).toBe('invalid_request');
    expect((e as Error).message).toMatch(call);
    return;
  }
  throw new Error('did not throw');
}

describe('inputs in the wrong form', () => {
  it('COSE_KeySet bytes where keys go: readCoseKeySet named', () => {
    refusedNaming(
      () => verifyTransparentStatement(new Uint8Array(8), { issuers: [], logs: [{ keys: keySetBytes as never }] }),
      /readCoseKeySet/,
    );
    refusedNaming(() => verifyStatement(new Uint8Array(8), keySetBytes as never), /readCoseKeySet/);
    refusedNaming(() => verifyCose1(new Uint8Array(8), keySetBytes as never), /readCoseKeySet/);
    refusedNaming(() => verifyReceipt(new Uint8Array(8), new Uint8Array(32), { keys: keySetBytes as never }), /readCoseKeySet/);
    // At construction, before any bundle: inside verifyBundle it would read as every receipt unknown.
    refusedNaming(() => scittChecker({ logs: [{ keys: keySetBytes as never }] }), /readCoseKeySet/);
  });

  it('a JWK Set where its keys array goes: set.keys named; its text or bytes where the set goes: JSON.parse named', () => {
    refusedNaming(() => verifyStatement(new Uint8Array(8), jwkSet as never), /set\.keys/);
    refusedNaming(() => verifyJws({ payload: '', signatures: [] }, JSON.stringify(jwkSet) as never), /JSON\.parse/);
    refusedNaming(() => verifyJws({ payload: '', signatures: [] }, new TextEncoder().encode('{}') as never), /JSON\.parse/);
  });

  it('base64url text where COSE bytes go: fromBase64Url named', () => {
    for (const f of [
      () => verifyCose1('0oRYJqMBOC...', []),
      () => verifyStatement('0oRYJqMBOC...', []),
      () => verifyTransparentStatement('0oRYJqMBOC...', { issuers: [], logs: [] }),
      () => verifyReceipt('0oRYJqMBOC...', new Uint8Array(32), { keys: [] }),
    ])
      refusedNaming(f, /fromBase64Url/);
  });

  it('documents of any other form are still verdicts, never throws (property)', () => {
    fc.assert(
      fc.property(
        fc.anything().filter((v) => typeof v !== 'string'),
        (doc) => {
          expect(verifyCose1(doc, []).ok).toBe(false);
          expect(verifyStatement(doc, []).ok).toBe(false);
          expect(verifyTransparentStatement(doc, { issuers: [], logs: [{ keys: [] }] }).ok).toBe(false);
          expect(verifyJws(doc, { keys: [] }).ok).toBe(false);
        },
      ),
      { numRuns: 200 },
    );
  });
});
