// Verification and records: the document is judged in the verification pool, off the event loop.
import { checkOrg } from '@svc/core/record';
import type { Handler } from '../../http/types.js';
import { settled } from '../answers.js';
import type { AppDeps } from '../deps.js';
import type { VERIFY_ROUTES } from './routes.js';

export function verifyHandlers(d: AppDeps): Record<(typeof VERIFY_ROUTES)[number]['operationId'], Handler> {
  const now = d.now ?? Date.now;
  return {
    verifyBundle: async (req) => settled(await d.executor.run({ op: 'verify', body: await req.body() })),
    createRecord: async (req) => {
      const org = checkOrg(req.query.get('org') ?? undefined);
      const body = await req.body();
      const generated = Math.floor(now() / 1000);
      return settled(await d.executor.run({ op: 'evidence', body, generated, ...(org !== undefined ? { org } : {}) }));
    },
  };
}
