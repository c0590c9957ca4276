// The keyring in the data folder. Public halves are JSON files; secret halves are separate files
// with mode 0600. Rotation moves the old public half to retired/, so historic key ids keep
// resolving on the pubkey endpoints.
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import {
  FALCON_1024,
  ML_DSA_87,
  SLH_DSA_SHA2_256F,
  fromHex,
  keygen,
  receiptKeyId,
  toHex,
  type AlgorithmName,
  type KeyPair,
} from '@svc/core';

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
} as const satisfies Record<string, AlgorithmName>;

export type Role = keyof typeof ROLES;

interface PublicFile {
  role: Role;
  alg: AlgorithmName;
  key_id: string;
  public_key_hex: string;
  created: string;
  retired?: string;
}

export interface RetiredKey {
  role: Role;
  alg: AlgorithmName;
  publicKey: Uint8Array;
}

export class Keyring {
  private readonly current = new Map<Role, KeyPair>();
  private readonly retired: RetiredKey[] = [];

  constructor(readonly dir: string) {}

  get(role: Role): KeyPair {
    const k = this.current.get(role);
    if (!k) throw new Error(`no ${role} key in ${this.dir}`);
    return k;
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
    const roles = opts.roles ?? (opts.rotate ? (Object.keys(ROLES) as Role[]) : missing);
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
      const alg = ROLES[role];
      const seedLen = alg === ML_DSA_87 ? 32 : alg === FALCON_1024 ? 48 : 96;
      const kp = keygen(alg, opts.seed ? opts.seed(role, seedLen) : new Uint8Array(randomBytes(seedLen)));
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
