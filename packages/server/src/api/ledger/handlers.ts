// The ledger's JSON API: its signed head, proofs and history. Requests are read here (an
// inclusion request in the pool, as it can be 2 MB); the ledger answers typed questions.
import { HttpError } from '../../http/errors.js';
import { json, type Handler } from '../../http/types.js';
import type { LedgerApi } from '../../ledger/api.js';
import { inclusionQuery } from '../../ledger/inclusion-request.js';
import { intParam, settled } from '../answers.js';
import type { AppDeps } from '../deps.js';
import type { LEDGER_ROUTES } from './routes.js';

const disabled = { enabled: false };

export function ledgerHandlers(d: AppDeps): Record<(typeof LEDGER_ROUTES)[number]['operationId'], Handler> {
  // A proof has no {enabled:false} form (interface.md gives it to the head and history only): with
  // the ledger off, proof requests are 503.
  const on = (): LedgerApi => {
    if (!d.ledger) throw new HttpError('unavailable', 'the ledger is off on this server');
    return d.ledger;
  };
  return {
    getSignedTreeHead: async () => json(200, (await d.ledger?.head()) ?? disabled),
    proveInclusion: async (req) => {
      const read = settled(await d.executor.run({ op: 'inclusion', body: await req.body() }));
      // The pool reduced the body to its small normal form; read here into the ledger's typed question.
      return json(200, await on().inclusion(inclusionQuery(JSON.parse(read.body as string))));
    },
    proveConsistency: async (req) => {
      const l = on();
      const signed = req.query.get('signed');
      if (signed !== null && signed !== '1') throw new HttpError('invalid_request', 'signed takes only the value 1');
      const first = intParam(req.query, 'first', true)!;
      const second = intParam(req.query, 'second', false);
      return json(200, await l.consistency(first, second, signed === '1'));
    },
    getLedgerHistory: async (req) => {
      const v = req.query.get('verifiable');
      if (v !== null && v !== '1') throw new HttpError('invalid_request', 'verifiable takes only the value 1');
      return json(200, (await d.ledger?.history(v === '1')) ?? disabled);
    },
  };
}
