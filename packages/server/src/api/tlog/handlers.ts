// The tiled log: checkpoint, vkeys, witnessing state and tiles (c2sp.org/tlog-tiles).
import { parseTilePath } from '@svc/core/tlog';
import { HttpError } from '../../http/errors.js';
import { json, type Handler } from '../../http/types.js';
import type { LogApi } from '../../tlog/api.js';
import { textAnswer } from '../answers.js';
import type { AppDeps } from '../deps.js';
import type { TLOG_ROUTES } from './routes.js';

const IMMUTABLE = 'public, max-age=31536000, immutable';
const HOUR_CACHE = 'public, max-age=3600';

export function tlogHandlers(d: AppDeps): Record<(typeof TLOG_ROUTES)[number]['operationId'], Handler> {
  // The tiled log exists only with the ledger: without it there is nothing to serve (404).
  const tlog = (): LogApi => {
    if (!d.ledger) throw new HttpError('not_found', 'the ledger is off on this server');
    return d.ledger;
  };
  return {
    getCheckpoint: async () => textAnswer(await tlog().checkpoint()),
    getWitnessing: async () => {
      const status = tlog().witnessing?.();
      return json(200, status ? { enabled: true, ...status } : { enabled: false });
    },
    getLogVkeys: async () => textAnswer(tlog().vkeys()),
    getTile: async (_req, params) => {
      const id = parseTilePath(`tile/${params.tile ?? ''}`);
      if (!id) throw new HttpError('not_found', 'not a tile path (tlog-tiles: <L>/<N>[.p/<W>] or entries/<N>[.p/<W>])');
      const body = await tlog().tile(id);
      // A full tile never changes; a partial one is replaced by longer ones as the log grows.
      return {
        status: 200,
        body,
        headers: { 'content-type': 'application/octet-stream', 'cache-control': id.width === 256 ? IMMUTABLE : HOUR_CACHE },
      };
    },
  };
}
