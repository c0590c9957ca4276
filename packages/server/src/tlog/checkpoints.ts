// Checkpoints of the ledger's signed heads (c2sp.org/tlog-checkpoint), and the log's verifier keys.
// A checkpoint is a pure function of a head and the log keys: signatures are deterministic and
// timestamped with the head's own time (in seconds), so every instance serving one database gives
// byte-identical checkpoints, and none needs storing. Lines: ML-DSA-44 subtree/v1 (what standard
// clients verify), ML-DSA-87 (this project's load-bearing algorithm, 0xff type), Ed25519 (0x01, for
// the public witness network; SVC_LOG_ED25519=off drops it).
import { randomBytes } from 'node:crypto';
import { existsSync, linkSync, mkdirSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Names } from '@svc/core';
import { fromHex, toHex } from '@svc/core/primitives';
import { formatCheckpoint, noteSigner, noteVerifier, signNote, type NoteSigner } from '@svc/core/tlog';
import { isLogOrigin, type Config } from '../config.js';
import { LOG_KEY_TYPES, type Keyring, type LogRole } from '../keys/keyring.js';

export interface CheckpointHead {
  tree_size: number;
  root_hash: string;
  /** Milliseconds, as the JSON head signs it. */
  timestamp: number;
}

export interface Checkpointer {
  readonly origin: string;
  /** The checkpoint note of a head, with every current log key's line. */
  sign(head: CheckpointHead): string;
  /** Verifier keys, one per line: current keys first, then retired ones (text/plain). */
  vkeys(): string;
}

const ORIGIN_FILE = 'log-origin';

/**
 * The log's origin: SVC_LOG_ORIGIN, else the one kept in the keys folder, made on first use as
 * `<service>-ledger.invalid/<16 random hex>` (unique per deployment; copied with the keys to every
 * instance that shares them; `.invalid` says it is a name, not an address).
 */
export function logOrigin(cfg: Config, names: Names): string {
  return cfg.logOrigin ?? keptName(cfg.dataDir, ORIGIN_FILE, `${names.service}-ledger.invalid`);
}

/**
 * A name kept in the keys folder: read, or made once as `<prefix>/<16 random hex>` (refused when
 * the file holds something that is not a key name).
 */
export function keptName(dataDir: string, fileName: string, prefix: string): string {
  const dir = join(dataDir, 'keys');
  const file = join(dir, fileName);
  if (!existsSync(file)) {
    // Processes starting together race here: each writes its own whole file and links it into
    // place; link never replaces, so one name wins, a loser reads the winner's, and nobody ever
    // reads a half-written file.
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const tmp = `${file}.${process.pid}.${toHex(new Uint8Array(randomBytes(4)))}.tmp`;
    writeFileSync(tmp, `${prefix}/${toHex(new Uint8Array(randomBytes(8)))}\n`, { flag: 'wx', mode: 0o600 });
    try {
      linkSync(tmp, file);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    } finally {
      unlinkSync(tmp);
    }
  }
  const o = readFileSync(file, 'utf8').trim();
  if (!isLogOrigin(o)) throw new Error(`${file} does not hold a valid ${fileName === ORIGIN_FILE ? 'log origin' : 'key name'}`);
  return o;
}

export function logRoles(cfg: Pick<Config, 'logEd25519'>): LogRole[] {
  return cfg.logEd25519 ? ['log-mldsa44', 'log-mldsa87', 'log-ed25519'] : ['log-mldsa44', 'log-mldsa87'];
}

// WF-CHECKPOINT
export function checkpointer(ring: Keyring, origin: string, roles: readonly LogRole[]): Checkpointer {
  const signers: NoteSigner[] = roles.map((r) => noteSigner(origin, ring.logKey(r)));
  const retired = roles.flatMap((r) =>
    ring
      .publicKeys(r)
      .slice(1)
      .map((pk) => noteVerifier(origin, LOG_KEY_TYPES[r], pk).vkey),
  );
  const vkeys = `${[...signers.map((s) => s.vkey), ...retired].join('\n')}\n`;
  let last: { key: string; note: string } | null = null;
  return {
    origin,
    sign(head) {
      const key = `${head.tree_size}:${head.root_hash}:${head.timestamp}`;
      if (last?.key === key) return last.note;
      const text = formatCheckpoint({ origin, size: head.tree_size, root: fromHex(head.root_hash, 32)!, extensions: [] });
      const note = signNote(text, signers, Math.floor(head.timestamp / 1000));
      last = { key, note };
      return note;
    },
    vkeys: () => vkeys,
  };
}

/**
 * The policy this server verifies proofs' log checkpoints under: its witness policy when it has
 * one (which names its log keys), else its own log keys with no witness quorum; none without a
 * ledger. A hand-made checkpoint naming this log is then judged by this log's keys.
 *
 * @example
 * ```ts
 * const text = ownLogPolicy(cfg, names, ring); // 'log <vkey>\nlog <vkey>\nquorum none\n'
 * ```
 */
export function ownLogPolicy(cfg: Config, names: Names, ring: Keyring): string | undefined {
  if (!cfg.ledger) return undefined;
  if (cfg.witnessPolicy) return readFileSync(cfg.witnessPolicy, 'utf8');
  const vkeys = checkpointer(ring, logOrigin(cfg, names), logRoles(cfg)).vkeys().trimEnd().split('\n');
  return `${vkeys.map((v) => `log ${v}`).join('\n')}\nquorum none\n`;
}
