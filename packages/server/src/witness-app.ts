// Running a witness on its own: `svc witness serve --policy FILE --data-dir DIR` (PORT, HOST as for
// svc serve; routes at /). Keys and the witness name are kept in the data folder's keys/, the
// cosigned state in witness.sqlite beside them.
import type { Server } from 'node:http';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { parsePolicy } from '@svc/core/tlog';
import type { Config } from './config.js';
import { witnessHandlers } from './api/witness/handlers.js';
import { WITNESS_ROUTES } from './api/witness/routes.js';
import { mount } from './http/pipeline.js';
import { serveAtRoot } from './http/standalone.js';
import { Keyring, WITNESS_ROLES } from './keys/keyring.js';
import type { Logger } from './log.js';
import { keptName } from './tlog/checkpoints.js';
import { WitnessStore, type WitnessStates } from './witness/store.js';
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
  const { ring, kept } = cosignerFolder(cfg, 'witness');
  const name = process.env.SVC_WITNESS_NAME || kept;
  // pg is loaded only where PostgreSQL is configured (16 MiB a process otherwise mapped for nothing).
  const store: WitnessStates = cfg.databaseUrl
    ? await (await import('./witness/postgres.js')).PgWitnessStore.open(cfg.databaseUrl, (e) =>
        log('witness_db_error', { error: e.message }),
      )
    : new WitnessStore(join(cfg.dataDir, 'witness.sqlite'));
  const witness = new Witness({ name, policy, ring, store, log, ...(now ? { now } : {}) });
  return { witness, store };
}

const STATE = { witness: 'witness.sqlite', mirror: 'mirror.sqlite' } as const;

/**
 * A cosigner's data folder: its cosigning keys (made when missing) and its kept name. A witness and
 * a mirror are distinct cosigners (tlog-mirror): a folder holding the other's state is refused, so
 * the two never share keys or a name.
 */
export function cosignerFolder(cfg: Config, role: 'witness' | 'mirror'): { ring: ReturnType<typeof Keyring.load>['ring']; kept: string } {
  const other = role === 'witness' ? 'mirror' : 'witness';
  if (existsSync(join(cfg.dataDir, STATE[other])))
    throw new Error(`${cfg.dataDir} holds a ${other}'s state: a ${role} needs a data folder of its own (its own keys and name)`);
  const keys = join(cfg.dataDir, 'keys');
  mkdirSync(keys, { recursive: true, mode: 0o700 });
  Keyring.generate(keys, { roles: Keyring.load(keys).missing.filter((r) => (WITNESS_ROLES as readonly string[]).includes(r)) });
  return { ring: Keyring.load(keys).ring, kept: keptName(cfg.dataDir, `${role}-name`, `${cfg.service}-${role}.invalid`) };
}

export async function startWitness(cfg: Config, policyText: string, log: Logger): Promise<RunningWitness> {
  const { witness, store } = await openWitness(cfg, policyText, log);
  const routes = mount(
    WITNESS_ROUTES,
    witnessHandlers(() => witness),
    { from: '/api/transparency/witness/', to: '/' },
  );
  const health = () => ({ witness: witness.signers[0]!.name, logs: witness.origins.length });
  const served = await serveAtRoot(cfg, routes, health, log, () => store.close());
  log('witness_listening', { url: served.url, name: witness.signers[0]!.name, logs: witness.origins });
  return { ...served, witness };
}
