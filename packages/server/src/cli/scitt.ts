// `svc verify` of a SCITT Signed or Transparent Statement (a COSE_Sign1 that is a hash envelope, or
// carries receipts): the issuer's signature against the answer keys, each receipt against the log's
// receipt keys (/.well-known/scitt-keys). A receipt proves inclusion in the head it names; whether
// that head is the one the log shows everyone is the witnesses' and `svc ledger audit`'s business.
import { toHex } from '@svc/core/primitives';
import { readCose1, readCoseKeySet } from '@svc/core/envelope';
import { SCITT_HEADER, verifyTransparentStatement } from '@svc/core/scitt';
import { CliError, baseUrl } from './common.js';
import { fetchCoseKeys, readBytes } from './envelope.js';
import { jsonForTerminal } from './io.js';

/** Whether a COSE_Sign1 is a SCITT statement: a hash envelope (258) or one carrying receipts (394). */
export function isScittStatement(cose: Uint8Array): boolean {
  try {
    const c = readCose1(cose);
    return c.header.has(SCITT_HEADER.payloadHashAlg) || c.unprotected.has(SCITT_HEADER.receipts);
  } catch {
    return false;
  }
}

/** Exit 0 when the statement and at least one receipt verify (and none of the log's fails), else 1. */
export async function verifyScitt(
  cose: Uint8Array,
  opts: { json?: boolean; keys?: string; 'keys-url'?: string },
  out: (s: string) => void,
): Promise<number> {
  let issuers: unknown[];
  let logKeys: unknown[];
  if (opts.keys) {
    // One COSE_KeySet holding the issuer's and the log's keys.
    try {
      issuers = logKeys = readCoseKeySet(readBytes(opts.keys));
    } catch (e) {
      if (e instanceof CliError) throw e;
      throw new CliError(`${opts.keys} is not a COSE_KeySet: ${(e as Error).message}`, 2);
    }
  } else if (opts['keys-url']) {
    const base = baseUrl(opts['keys-url']);
    issuers = await fetchCoseKeys(`${base}/api/provenance/cose-keys?kind=answer`);
    logKeys = await fetchCoseKeys(`${base}/.well-known/scitt-keys`);
  } else throw new CliError('a statement names its keys only by kid: give --keys-url BASE, or --keys FILE (a COSE_KeySet)', 2);
  const v = verifyTransparentStatement(cose, { issuers, logs: [{ keys: logKeys }] });
  if (opts.json)
    out(
      jsonForTerminal({
        format: 'scitt',
        ...v,
        statement: { ...v.statement, payload: v.statement.payload ? toHex(v.statement.payload) : undefined },
      }),
    );
  else {
    const s = v.statement;
    out(
      [
        `SCITT Transparent Statement: issuer ${s.iss ?? '?'}, subject ${s.sub ?? '?'}${s.alg ? `, ${s.alg}` : ''}`,
        v.ok ? 'PASS: the issuer signed it and the log included it.' : `FAIL (${v.error}). ${v.detail ?? ''}`.trim(),
        `  statement ${s.ok ? 'ok' : `FAILED (${s.error})`}, leaf ${s.leaf}`,
        ...v.receipts.map((r) =>
          r.ok
            ? `  receipt ${r.alg} ok: root ${r.root} signed by log ${r.iss ?? '?'}; its proof says leaf ${r.index} of ${r.size}${r.positionSigned ? ' (signed: a trusted checkpoint of that size)' : ' (unsigned: only the root is)'}`
            : `  receipt ${r.alg ?? '?'} FAILED (${r.error}) ${r.detail ?? ''}`.trimEnd(),
        ),
        'A receipt proves inclusion in the head it names; `svc ledger audit` checks that head is the one everyone sees.',
        'A passing verdict attests origin and integrity only, never that the content is accurate.',
      ].join('\n'),
    );
  }
  return v.ok ? 0 : 1;
}
