// The keyring in the data folder. Public halves are JSON files; secret halves are separate files
// with mode 0600. Rotation moves the old public half to retired/, so historic key ids keep
// resolving on the pubkey endpoints.
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { FALCON_1024, ML_DSA_87, SLH_DSA_SHA2_256F, fromHex, keygen, toHex, type AlgorithmName, type KeyPair } from '@svc/core/primitives';
import { receiptKeyId } from '@svc/core/issue';
import { logKeygen, type LogKeyPair, type SignatureType } from '@svc/core/tlog';

/** Algorithms of the keyring: the receipt algorithms, and the two only checkpoints use. */
export type KeyAlg = AlgorithmName | 'ML-DSA-44' | 'Ed25519';

export const ROLES = {
  answer: ML_DSA_87,
  autopilot: ML_DSA_87,
  export: ML_DSA_87,
  sth: ML_DSA_87,
  'bridge-primary': ML_DSA_87,
  'bridge-cosign': FALCON_1024,
  'evidence-mldsa': ML_DSA_87,
  'evidence-slh': SLH_DSA_SHA2_256F,
  'slh-diversity': SLH_DSA_SHA2_256F,
  // The classical second signature of receipts' JWS and COSE envelopes (Node 20's jose, COSE tools).
  'envelope-ed25519': 'Ed25519',
  // Checkpoint signatures (c2sp.org/tlog-checkpoint): each its own key, named by the log's origin.
  'log-mldsa44': 'ML-DSA-44',
  'log-mldsa87': ML_DSA_87,
  'log-ed25519': 'Ed25519',
  // A witness's cosigning keys (c2sp.org/tlog-cosignature): made only for `svc witness`.
  'witness-mldsa44': 'ML-DSA-44',
  'witness-ed25519': 'Ed25519',
} as const satisfies Record<string, KeyAlg>;

export type Role = keyof typeof ROLES;
export type LogRole = 'log-mldsa44' | 'log-mldsa87' | 'log-ed25519' | 'witness-mldsa44' | 'witness-ed25519';
/** The note signature type each log or witness key signs with. */
export const LOG_KEY_TYPES: Record<LogRole, SignatureType> = {
  'log-mldsa44': 'subtree/v1',
  'log-mldsa87': 'mldsa87-subtree',
  'log-ed25519': 'ed25519',
  'witness-mldsa44': 'subtree/v1',
  'witness-ed25519': 'cosignature/v1',
};
/** Roles made only on request (a server that witnesses nothing holds no witness keys). */
export const WITNESS_ROLES = ['witness-mldsa44', 'witness-ed25519'] as const satisfies readonly Role[];
const isLogRole = (r: Role): r is LogRole => r in LOG_KEY_TYPES;

interface PublicFile {
  role: Role;
  alg: KeyAlg;
  key_id: string;
  public_key_hex: string;
  created: string;
  retired?: string;
}

export interface RetiredKey {
  role: Role;
  alg: KeyAlg;
  publicKey: Uint8Array;
}

export class Keyring {
  private readonly current = new Map<Role, { alg: KeyAlg; publicKey: Uint8Array; secretKey: Uint8Array }>();
  private readonly retired: RetiredKey[] = [];

  constructor(readonly dir: string) {}

  get(role: Exclude<Role, LogRole> | 'log-mldsa87'): KeyPair {
    const k = this.current.get(role);
    if (!k) throw new Error(`no ${role} key in ${this.dir}`);
    return k as KeyPair;
  }

  /** A checkpoint key, typed for the note signature it makes. */
  logKey(role: LogRole): LogKeyPair {
    const k = this.current.get(role);
    if (!k) throw new Error(`no ${role} key in ${this.dir}`);
    return { type: LOG_KEY_TYPES[role], publicKey: k.publicKey, secretKey: k.secretKey };
  }

  /** The 32-byte Ed25519 seed of the envelopes' classical key (RFC 8032 private key), if held. */
  envelopeSeed(): Uint8Array | undefined {
    return this.current.get('envelope-ed25519')?.secretKey;
  }

  has(role: Role): boolean {
    return this.current.has(role);
  }

  /** Current and retired public keys of a role, current first. */
  publicKeys(role: Role): Uint8Array[] {
    const cur = this.current.get(role);
    return [...(cur ? [cur.publicKey] : []), ...this.retired.filter((r) => r.role === role).map((r) => r.publicKey)];
  }

  /** Load every key present. Returns the roles that are missing. */
  static load(dir: string): { ring: Keyring; missing: Role[] } {
    const ring = new Keyring(dir);
    const missing: Role[] = [];
    for (const role of Object.keys(ROLES) as Role[]) {
      const pub = join(dir, `${role}.json`);
      const sec = join(dir, `${role}.secret`);
      if (!existsSync(pub) || !existsSync(sec)) {
        missing.push(role);
        continue;
      }
      const p = JSON.parse(readFileSync(pub, 'utf8')) as PublicFile;
      const publicKey = fromHex(p.public_key_hex);
      const secretKey = fromHex(readFileSync(sec, 'utf8').trim());
      if (!publicKey || !secretKey || p.alg !== ROLES[role]) throw new Error(`key file for ${role} in ${dir} is damaged`);
      ring.current.set(role, { alg: p.alg, publicKey, secretKey });
    }
    const retiredDir = join(dir, 'retired');
    if (existsSync(retiredDir)) {
      for (const f of readdirSync(retiredDir)
        .filter((n) => n.endsWith('.json'))
        .sort()) {
        const p = JSON.parse(readFileSync(join(retiredDir, f), 'utf8')) as PublicFile;
        const publicKey = fromHex(p.public_key_hex);
        if (publicKey && p.role in ROLES) ring.retired.push({ role: p.role, alg: p.alg, publicKey });
      }
    }
    return { ring, missing };
  }

  /**
   * Generate keys for `roles` (missing ones by default). With `rotate`, existing keys of those roles
   * are retired first. Returns the roles written.
   */
  static generate(dir: string, opts: { roles?: Role[]; rotate?: boolean; seed?: (role: Role, len: number) => Uint8Array } = {}): Role[] {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const { missing } = Keyring.load(dir);
    const roles =
      opts.roles ?? (opts.rotate ? (Object.keys(ROLES) as Role[]) : missing).filter((r) => !(WITNESS_ROLES as readonly Role[]).includes(r));
    const written: Role[] = [];
    for (const role of roles) {
      const pubPath = join(dir, `${role}.json`);
      const secPath = join(dir, `${role}.secret`);
      if (existsSync(pubPath)) {
        if (!opts.rotate) continue;
        const old = JSON.parse(readFileSync(pubPath, 'utf8')) as PublicFile;
        mkdirSync(join(dir, 'retired'), { recursive: true });
        writeFileSync(
          join(dir, 'retired', `${role}-${old.key_id.slice(0, 16)}.json`),
          JSON.stringify({ ...old, retired: new Date().toISOString() }, null, 2),
        );
        renameSync(secPath, join(dir, 'retired', `${role}-${old.key_id.slice(0, 16)}.secret.retired`));
      }
      const alg: KeyAlg = ROLES[role];
      const seedLen = alg === FALCON_1024 ? 48 : alg === SLH_DSA_SHA2_256F ? 96 : 32;
      const seed = opts.seed ? opts.seed(role, seedLen) : new Uint8Array(randomBytes(seedLen));
      // Ed25519 keeps its 32-byte seed as the secret (RFC 8032); the others their expanded key.
      const kp =
        isLogRole(role) && role !== 'log-mldsa87'
          ? logKeygen(LOG_KEY_TYPES[role], seed)
          : alg === 'Ed25519'
            ? logKeygen('ed25519', seed)
            : keygen(alg as AlgorithmName, seed);
      const pub: PublicFile = {
        role,
        alg,
        key_id: receiptKeyId(kp.publicKey),
        public_key_hex: toHex(kp.publicKey),
        created: new Date().toISOString(),
      };
      writeFileSync(secPath, `${toHex(kp.secretKey)}\n`, { mode: 0o600 });
      chmodSync(secPath, 0o600);
      writeFileSync(pubPath, `${JSON.stringify(pub, null, 2)}\n`);
      written.push(role);
    }
    return written;
  }
}
