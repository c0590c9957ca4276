// SCRAPI's handlers: the HTTP side of the SCITT service (scitt/service.ts). Bodies are CBOR or
// COSE bytes; refusals carry SCRAPI's titles and go out as Concise Problem Details (the routes say so).
import { HttpError } from '../../http/errors.js';
import type { AppResponse, Handler } from '../../http/types.js';
import { MAX_STATEMENT_BYTES, RegistrationRefused, type ReceiptAlg, type ScittService } from '../../scitt/service.js';
import type { AppDeps } from '../deps.js';
import type { SCITT_ROUTES } from './routes.js';

const COSE = 'application/cose';
const ID = /^[0-9a-f]{64}$/;
const ALGS: Record<string, ReceiptAlg> = { 'ML-DSA-44': 'ML-DSA-44', EdDSA: 'Ed25519' };

const bytes = (body: Uint8Array, type: string, headers: Record<string, string> = {}) => ({
  status: 200,
  body,
  headers: { 'content-type': type, ...headers },
});

export function scittHandlers(d: AppDeps): Record<(typeof SCITT_ROUTES)[number]['operationId'], Handler> {
  const on = (): ScittService => {
    if (!d.scitt) throw new HttpError('not_found', 'the ledger is off on this server: it registers nothing');
    return d.scitt;
  };
  return {
    getTransparencyConfiguration: async () => bytes(on().configuration(), 'application/cbor'),
    getScittKeys: async () => bytes(on().keySet(), 'application/cbor'),
    getScittKey: async (_req, p) => {
      const k = on().key(p.kid ?? '');
      if (!k) throw new HttpError('not_found', 'No key could be found for this kid value', { title: 'No such key' });
      return bytes(k, 'application/cbor');
    },
    registerSignedStatement: async (req): Promise<AppResponse> => {
      const s = on();
      const type = String(req.headers['content-type'] ?? '')
        .split(';')[0]!
        .trim()
        .toLowerCase();
      if (type !== COSE)
        throw new HttpError('invalid_request', 'the body is a Signed Statement: Content-Type application/cose', { status: 400 });
      const body = await req.body();
      if (body.length > MAX_STATEMENT_BYTES)
        throw new HttpError('too_large', `a Signed Statement over ${MAX_STATEMENT_BYTES} bytes`, { title: 'Payload too large' });
      let r: Awaited<ReturnType<ScittService['register']>>;
      try {
        r = await s.register(body);
      } catch (e) {
        if (e instanceof RegistrationRefused) throw new HttpError('invalid_request', e.message, { status: 400, title: e.title });
        throw e;
      }
      const location = `/entries/${r.id}`;
      if ('pending' in r) return { status: 303, headers: { location, 'retry-after': '1', 'cache-control': 'no-store' } };
      return { status: 201, body: r.receipt, headers: { 'content-type': COSE, location, 'cache-control': 'no-store' } };
    },
    resolveReceipt: async (req, p) => {
      const s = on();
      const id = p.id ?? '';
      if (!ID.test(id))
        throw new HttpError('invalid_request', 'an entry id is 64 lowercase hex characters', { status: 400, title: 'Invalid locator' });
      const algName = req.query.get('alg') ?? 'ML-DSA-44';
      const alg = ALGS[algName];
      if (!alg || !s.algs().includes(alg))
        throw new HttpError('invalid_request', `this log signs receipts with ${s.algs().join(', ')}`, { status: 400 });
      const r = await s.receipt(id, alg);
      if (r === 'pending') return { status: 302, headers: { location: `/entries/${id}`, 'retry-after': '1' } };
      return bytes(r, COSE, { location: `/entries/${id}` });
    },
  };
}
