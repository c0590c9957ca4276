// The tlog-witness's routes: the same handlers inside svc serve (under /api/transparency/witness/)
// and in svc witness serve (at /).
import { HttpError } from '../../http/errors.js';
import type { Handler } from '../../http/types.js';
import type { Witness } from '../../witness/witness.js';
import { textAnswer } from '../answers.js';
import type { WITNESS_ROUTES } from './routes.js';

export function witnessHandlers(
  witness: () => Witness | null | undefined,
): Record<(typeof WITNESS_ROUTES)[number]['operationId'], Handler> {
  const w = (): Witness => {
    const found = witness();
    if (!found) throw new HttpError('not_found', 'this server is not a witness (SVC_WITNESS_SERVE_POLICY)');
    return found;
  };
  return {
    witnessAddCheckpoint: async (req) => {
      const a = await w().addCheckpoint(await req.body());
      return { status: a.status, body: a.body, headers: { 'content-type': a.contentType, 'cache-control': 'no-store' } };
    },
    witnessSignSubtree: async (req) => {
      const a = w().signSubtree(await req.body());
      return { status: a.status, body: a.body, headers: { 'content-type': a.contentType, 'cache-control': 'no-store' } };
    },
    getWitnessVkeys: async () => textAnswer(w().vkeys()),
    getWitnessedCheckpoint: async (_req, params) => {
      const hash = params.origin_hash ?? '';
      if (!/^[0-9a-f]{64}$/.test(hash)) throw new HttpError('not_found', 'an origin hash is 64 lowercase hex characters');
      const checkpoint = await w().checkpoint(hash);
      if (checkpoint === null) throw new HttpError('not_found', 'this witness has cosigned no checkpoint of that log');
      return textAnswer(checkpoint);
    },
  };
}
