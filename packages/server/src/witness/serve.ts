// Running a witness on its own: `svc witness serve --policy FILE --data-dir DIR` (PORT, HOST as for
// svc serve; routes at /). Keys and the witness name are kept in the data folder's keys/, the
// cosigned state in witness.sqlite beside them.
import type { Server } from 'node:http';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { parsePolicy } from '@svc/core/tlog';
import type { Config } from '../config.js';
import { HttpError } from '../http/errors.js';
import { listen, publicServer } from '../http/listen.js';
import type { AppRequest, AppResponse } from '../http/types.js';
import { Keyring, WITNESS_ROLES } from '../keys/keyring.js';
import type { Logger } from '../log.js';
import { keptName } from '../tlog/checkpoints.js';
import { PgWitnessStore } from './postgres.js';
import { WitnessStore, type WitnessStates } from './store.js';
import { VERSION } from '../version.js';
import { Witness, witnessRoutes } from './witness.js';

export interface RunningWitness {
  server: Server;
  url: string;
  witness: Witness;
  close(): Promise<void>;
}

/**
 * The witness of a data folder: its keys (made when missing), its name, and its state in
 * witness.sqlite there, or in PostgreSQL (`databaseUrl`) shared with other instances.
 */
export async function openWitness(
  cfg: Config,
  policyText: string,
  log: Logger,
  now?: () => number,
): Promise<{ witness: Witness; store: WitnessStates }> {
  const policy = parsePolicy(policyText);
  const keys = join(cfg.dataDir, 'keys');
  mkdirSync(keys, { recursive: true, mode: 0o700 });
  Keyring.generate(keys, { roles: Keyring.load(keys).missing.filter((r) => (WITNESS_ROLES as readonly string[]).includes(r)) });
  const name = process.env.SVC_WITNESS_NAME || keptName(cfg.dataDir, 'witness-name', `${cfg.service}-witness.invalid`);
  const store: WitnessStates = cfg.databaseUrl
    ? await PgWitnessStore.open(cfg.databaseUrl, (e) => log('witness_db_error', { error: e.message }))
    : new WitnessStore(join(cfg.dataDir, 'witness.sqlite'));
  const witness = new Witness({ name, policy, ring: Keyring.load(keys).ring, store, log, ...(now ? { now } : {}) });
  return { witness, store };
}

export async function startWitness(cfg: Config, policyText: string, log: Logger): Promise<RunningWitness> {
  const { witness, store } = await openWitness(cfg, policyText, log);
  const route = witnessRoutes(witness, '/');
  // Liveness for a load balancer or an orchestrator, as svc serve answers it: the witness's name and logs.
  const health = (req: AppRequest): Promise<AppResponse> | null =>
    req.path === '/healthz' && (req.method === 'GET' || req.method === 'HEAD')
      ? Promise.resolve({
          status: 200,
          body: { ok: true, version: VERSION, witness: witness.signers[0]!.name, logs: witness.origins.length },
          headers: { 'cache-control': 'no-store' },
        })
      : null;
  const handle = async (req: AppRequest): Promise<AppResponse> => {
    try {
      const r = health(req) ?? route(req);
      if (!r) throw new HttpError('not_found', `no such endpoint: ${req.path}`);
      return await r;
    } catch (e) {
      const h = e instanceof HttpError ? e : null;
      if (!h) log('internal_error', { path: req.path, error: e instanceof Error ? e.message : String(e) });
      return h ? { status: h.status, body: h.toJSON() } : { status: 500, body: { error: 'internal error' } };
    }
  };
  const server = publicServer(cfg, handle, log);
  const url = await listen(server, cfg.host, cfg.port);
  log('witness_listening', { url, name: witness.signers[0]!.name, logs: witness.origins });
  return {
    server,
    url,
    witness,
    close: async () => {
      await new Promise<void>((r) => {
        server.close(() => r());
        server.closeAllConnections();
      });
      await store.close();
    },
  };
}
