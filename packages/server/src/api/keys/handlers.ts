// The service's keys as it publishes them, and its cryptographic bill of materials.
import { toHex } from '@svc/core/primitives';
import { parseVkey } from '@svc/core/tlog';
import { buildCbom, buildCycloneDx, type CbomKey } from '../../cbom.js';
import { HttpError } from '../../http/errors.js';
import { json, type Handler } from '../../http/types.js';
import { ROLES, type Role } from '../../keys/keyring.js';
import { envelopeCoseKeySet, envelopeJwks, evidenceSigner, modelPlaneKeys, pubkeyResponse } from '../../keys/publish.js';
import type { ReceiptKind } from '@svc/core/issue';
import type { AppDeps } from '../deps.js';
import type { KEYS_ROUTES } from './routes.js';

const CYCLONEDX_TYPE = 'application/vnd.cyclonedx+json';
const KINDS: readonly ReceiptKind[] = ['answer', 'run', 'export', 'tree-head'];

/** The optional `kind` query parameter of the key sets. */
function kindParam(q: URLSearchParams): ReceiptKind | undefined {
  const k = q.get('kind');
  if (k === null) return undefined;
  if (!(KINDS as readonly string[]).includes(k)) throw new HttpError('invalid_request', `kind takes one of ${KINDS.join(', ')}`);
  return k as ReceiptKind;
}

/** Every key the server holds or held, for the CBOM: the log's keys with their vkeys. */
function cbomKeys(d: AppDeps): CbomKey[] {
  // The log's keys are listed with their vkeys (what C2SP clients are configured with).
  const vkeyOf = new Map(
    (d.ledger?.vkeys() ?? '')
      .split('\n')
      .filter(Boolean)
      .map((line) => [toHex(parseVkey(line).publicKey), line] as const),
  );
  const logRole = (role: Role): boolean => role.startsWith('log-');
  return (Object.keys(ROLES) as Role[])
    .filter((role) => !logRole(role) || (d.ledger && (role !== 'log-ed25519' || d.cfg.logEd25519)))
    .flatMap((role) =>
      d.ring.publicKeys(role).map((publicKey, i) => {
        const vkey = logRole(role) ? vkeyOf.get(toHex(publicKey)) : undefined;
        return {
          role,
          alg: ROLES[role],
          publicKey,
          state: i === 0 && d.ring.has(role) ? 'active' : 'retired',
          ...(vkey ? { vkey } : {}),
        } as CbomKey;
      }),
    );
}

export function keysHandlers(d: AppDeps): Record<(typeof KEYS_ROUTES)[number]['operationId'], Handler> {
  const now = d.now ?? Date.now;
  const cbomSerial = crypto.randomUUID();
  const cbomTime = new Date(now()).toISOString();
  return {
    getAnswerKeys: async () => json(200, pubkeyResponse(d.ring, d.names, d.cfg.slhDiversity)),
    getEnvelopeJwks: async (req) => ({
      status: 200,
      body: JSON.stringify(envelopeJwks(d.ring, kindParam(req.query))),
      headers: { 'content-type': 'application/jwk-set+json' },
    }),
    getEnvelopeCoseKeys: async (req) => ({
      status: 200,
      body: envelopeCoseKeySet(d.ring, kindParam(req.query)),
      headers: { 'content-type': 'application/cose-key-set' },
    }),
    getModelPlaneKeys: async () => json(200, modelPlaneKeys(d.ring, d.names, d.cfg.bridge)),
    getEvidenceSigner: async () => json(200, evidenceSigner(d.ring, d.names)),
    getCbom: async (req) => {
      const format = req.query.get('format');
      if (format !== null && format !== 'cyclonedx') throw new HttpError('invalid_request', 'format takes only the value cyclonedx');
      const accept = String(req.headers.accept ?? '');
      const facts = { keys: cbomKeys(d), backends: d.cryptoBackends ?? {} };
      // Vary: one URL, two representations chosen by Accept.
      if (format === 'cyclonedx' || accept.includes(CYCLONEDX_TYPE)) {
        const body = buildCycloneDx(d.cfg, d.version, cbomSerial, cbomTime, facts);
        return { status: 200, body: JSON.stringify(body), headers: { vary: 'accept', 'content-type': `${CYCLONEDX_TYPE}; version=1.6` } };
      }
      return json(200, buildCbom(d.cfg, d.version, cbomSerial, cbomTime, facts), { vary: 'accept' });
    },
  };
}
