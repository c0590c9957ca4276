// Running a mirror on its own: `svc mirror serve --policy FILE --data-dir DIR` (PORT, HOST as for
// svc serve; routes at /, which is both its submission and its monitoring prefix). Its keys and
// name are kept in the data folder's keys/, the mirrored logs in mirror.sqlite beside them. A
// mirror is a cosigner distinct from any witness: a data folder that holds a witness's state is
// refused, so the two can never share keys or a name.
import type { Server } from 'node:http';
import { join } from 'node:path';
import { parsePolicy } from '@svc/core/tlog';
import type { Config } from './config.js';
import { mirrorHandlers } from './api/mirror/handlers.js';
import { MIRROR_ROUTES } from './api/mirror/routes.js';
import { mount } from './http/pipeline.js';
import { serveAtRoot } from './http/standalone.js';
import { cosignerFolder } from './witness-app.js';
import type { Logger } from './log.js';
import { Mirror } from './mirror/mirror.js';
import { SqliteMirrorStore, type MirrorStates } from './mirror/store.js';

export interface RunningMirror {
  server: Server;
  url: string;
  mirror: Mirror;
  close(): Promise<void>;
}

/**
 * The mirror of a data folder: its keys (made when missing), its name, and its logs in
 * mirror.sqlite there, or in PostgreSQL (`databaseUrl`) shared with other instances.
 */
export async function openMirror(
  cfg: Config,
  policyText: string,
  log: Logger,
  now?: () => number,
): Promise<{ mirror: Mirror; store: MirrorStates }> {
  const policy = parsePolicy(policyText);
  const { ring, kept: name } = cosignerFolder(cfg, 'mirror');
  const origins = [...new Set(policy.logs.map((l) => l.key.name))];
  // pg is loaded only where PostgreSQL is configured.
  const store: MirrorStates = cfg.databaseUrl
    ? await (await import('./mirror/postgres.js')).PgMirrorStore.open(cfg.databaseUrl, origins, (e) =>
        log('mirror_db_error', { error: e.message }),
      )
    : new SqliteMirrorStore(join(cfg.dataDir, 'mirror.sqlite'), origins);
  const mirror = new Mirror({ name, policy, ring, store, log, ...(now ? { now } : {}) });
  return { mirror, store };
}

export async function startMirror(cfg: Config, policyText: string, log: Logger, now?: () => number): Promise<RunningMirror> {
  const { mirror, store } = await openMirror(cfg, policyText, log, now);
  const health = () => ({ mirror: mirror.signers[0]!.name, logs: mirror.origins.length });
  const served = await serveAtRoot(cfg, mount(MIRROR_ROUTES, mirrorHandlers(mirror)), health, log, () => store.close());
  log('mirror_listening', { url: served.url, name: mirror.signers[0]!.name, logs: mirror.origins });
  return { ...served, mirror };
}
