// Running a witness on its own: `svc witness serve --policy FILE --data-dir DIR` (PORT, HOST as for
// svc serve; routes at /). Keys and the witness name are kept in the data folder's keys/, the
// cosigned state in witness.sqlite beside them.
import type { Server } from 'node:http';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { parsePolicy } from '@svc/core/tlog';
import type { Config } from './config.js';
import { witnessHandlers } from './api/witness/handlers.js';
import { WITNESS_ROUTES } from './api/witness/routes.js';
import { listen, publicServer } from './http/listen.js';
import { createPipeline, mount } from './http/pipeline.js';
import { Keyring, WITNESS_ROLES } from './keys/keyring.js';
import type { Logger } from './log.js';
import { keptName } from './tlog/checkpoints.js';
import { WitnessStore, type WitnessStates } from './witness/store.js';
import { VERSION } from './version.js';
import { Witness } from './witness/witness.js';

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
  // pg is loaded only where PostgreSQL is configured (16 MiB a process otherwise mapped for nothing).
  const store: WitnessStates = cfg.databaseUrl
    ? await (await import('./witness/postgres.js')).PgWitnessStore.open(cfg.databaseUrl, (e) =>
        log('witness_db_error', { error: e.message }),
      )
    : new WitnessStore(join(cfg.dataDir, 'witness.sqlite'));
  const witness = new Witness({ name, policy, ring: Keyring.load(keys).ring, store, log, ...(now ? { now } : {}) });
  return { witness, store };
}

export async function startWitness(cfg: Config, policyText: string, log: Logger): Promise<RunningWitness> {
  const { witness, store } = await openWitness(cfg, policyText, log);
  // The witness's routes at /, and liveness for a load balancer or an orchestrator, as svc serve
  // answers it: the witness's name and logs. The pipeline is svc serve's, without CORS or limits.
  const { handle } = createPipeline({
    routes: [
      ...mount(
        WITNESS_ROUTES,
        witnessHandlers(() => witness),
        { from: '/api/transparency/witness/', to: '/' },
      ),
      {
        method: 'GET',
        path: '/healthz',
        group: 'none',
        cache: 'no-store',
        run: async () => ({
          status: 200,
          body: { ok: true, version: VERSION, witness: witness.signers[0]!.name, logs: witness.origins.length },
        }),
      },
    ],
    log,
  });
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
