// Trust policies (c2sp.org/tlog-policy): the logs a verifier accepts, the witnesses it knows, and
// the quorum of witnesses whose cosignatures make a checkpoint believable. Names are opaque octet
// strings; groups and the quorum may only name what earlier lines defined.
import { TlogError } from './errors.js';
import { parseVkey, type NoteVerifier } from './keys.js';

/**
 * A log or witness of a policy: its key and optional URL.
 *
 * @example
 * ```ts
 * for (const [name, w] of parsePolicy(text).witnesses) console.log(name, w.key.vkey, w.url);
 * ```
 */
export interface PolicyEntry {
  key: NoteVerifier;
  url?: string;
}

/**
 * A parsed witness policy: the logs, witnesses, groups and quorum.
 *
 * @example
 * ```ts
 * const p: Policy = parsePolicy('log example.com/log+1f2e3d4c+AT...\nquorum none\n');
 * ```
 */
export interface Policy {
  logs: PolicyEntry[];
  /** Witnesses by their policy name. */
  witnesses: Map<string, PolicyEntry>;
  /** Groups by name: at least `k` of `members` (witness or group names) must have witnessed. */
  groups: Map<string, { k: number; members: string[] }>;
  /** A witness or group name, or 'none'. */
  quorum: string;
}

const LOG_TYPES = new Set(['ed25519', 'subtree/v1', 'mldsa87-subtree']);
const WITNESS_TYPES = new Set(['cosignature/v1', 'subtree/v1']);
/**
 * The most lines a policy may hold.
 *
 * @example
 * ```ts
 * if (text.split('\n').length > MAX_POLICY_ENTRIES) throw new Error('policy too long');
 * ```
 */
export const MAX_POLICY_ENTRIES = 256;

function bad(line: number, why: string): TlogError {
  return new TlogError('malformed_policy', `policy line ${line}: ${why}`);
}

/**
 * Parse a witness policy (C2SP witness policy format); throws TlogError on anything malformed.
 *
 * @example
 * ```ts
 * const policy = parsePolicy(['log example.com/log+1f2e3d4c+AT...', 'witness w1 w1.example+8a7b6c5d+BA...', 'quorum w1'].join('\n'));
 * ```
 */
export function parsePolicy(text: string): Policy {
  if (typeof text !== 'string' || text.length > 1 << 20) throw new TlogError('malformed_policy', 'a policy is text of at most 1 MiB');
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if ((c < 0x20 && c !== 0x09 && c !== 0x0a) || c === 0x7f)
      throw new TlogError('malformed_policy', 'a control character other than tab and newline');
  }
  const p: Policy = { logs: [], witnesses: new Map(), groups: new Map(), quorum: '' };
  const keys = new Set<string>();
  const key = (n: number, vkey: string | undefined, allowed: Set<string>, what: string): NoteVerifier => {
    let v: NoteVerifier;
    try {
      v = parseVkey(vkey);
    } catch (e) {
      throw bad(n, `not a vkey (${(e as Error).message})`);
    }
    if (!allowed.has(v.type)) throw bad(n, `a ${v.type} key cannot be a ${what} key`);
    const pk = Array.from(v.publicKey, (b) => b.toString(16).padStart(2, '0')).join('');
    if (keys.has(pk)) throw bad(n, 'the same public key twice');
    keys.add(pk);
    return v;
  };
  const lines = text.split('\n');
  let quorumLines = 0;
  for (const [i, raw] of lines.entries()) {
    const n = i + 1;
    const f = raw.trim().split(/[ \t]+/);
    if (f[0] === '' || f[0]!.startsWith('#')) continue;
    if (p.logs.length + p.witnesses.size + p.groups.size > MAX_POLICY_ENTRIES) throw bad(n, `more than ${MAX_POLICY_ENTRIES} entries`);
    const defined = (name: string) => name !== 'none' && (p.witnesses.has(name) || p.groups.has(name));
    switch (f[0]) {
      case 'log':
        if (f.length < 2 || f.length > 3) throw bad(n, 'log <vkey> [<url>]');
        p.logs.push({ key: key(n, f[1], LOG_TYPES, 'log'), ...(f[2] ? { url: f[2] } : {}) });
        break;
      case 'witness': {
        if (f.length < 3 || f.length > 4) throw bad(n, 'witness <name> <vkey> [<url>]');
        if (f[1] === 'none' || defined(f[1]!)) throw bad(n, `the name ${f[1]} is taken`);
        p.witnesses.set(f[1]!, { key: key(n, f[2], WITNESS_TYPES, 'witness'), ...(f[3] ? { url: f[3] } : {}) });
        break;
      }
      case 'group': {
        if (f.length < 4) throw bad(n, 'group <name> all|any|<k> <name>...');
        const [, name, k, ...members] = f as [string, string, string, ...string[]];
        if (name === 'none' || defined(name)) throw bad(n, `the name ${name} is taken`);
        if (new Set(members).size !== members.length) throw bad(n, 'a member listed twice');
        for (const m of members) if (!defined(m)) throw bad(n, `${m} is not defined on an earlier line`);
        const threshold = k === 'all' ? members.length : k === 'any' ? 1 : /^[1-9][0-9]{0,5}$/.test(k) ? Number(k) : Number.NaN;
        if (!(threshold >= 1 && threshold <= members.length)) throw bad(n, `threshold ${k} is not all, any or 1 to ${members.length}`);
        p.groups.set(name, { k: threshold, members });
        break;
      }
      case 'quorum':
        if (f.length !== 2) throw bad(n, 'quorum <name>');
        if (f[1] !== 'none' && !defined(f[1]!)) throw bad(n, `${f[1]} is not defined on an earlier line`);
        p.quorum = f[1]!;
        quorumLines++;
        break;
      default:
        throw bad(n, `unknown line type ${JSON.stringify(f[0]!.slice(0, 20))}`);
    }
  }
  if (quorumLines !== 1) throw new TlogError('malformed_policy', 'a policy has exactly one quorum line');
  return p;
}

/**
 * Whether the witnesses whose cosignatures verified (by vkey) satisfy the quorum.
 *
 * @example
 * ```ts
 * quorumMet(policy, new Set(['w1', 'w2'])); // whether those witnesses meet the policy's quorum
 * ```
 */
export function quorumMet(p: Policy, witnessed: ReadonlySet<string>): boolean {
  const memo = new Map<string, boolean>();
  const met = (name: string): boolean => {
    if (name === 'none') return true;
    const hit = memo.get(name);
    if (hit !== undefined) return hit;
    const w = p.witnesses.get(name);
    let r: boolean;
    if (w) r = witnessed.has(w.key.vkey);
    else {
      const g = p.groups.get(name)!;
      r = g.members.filter(met).length >= g.k;
    }
    memo.set(name, r);
    return r;
  };
  return met(p.quorum);
}

/**
 * The witness keys of a policy, for opening a note.
 *
 * @example
 * ```ts
 * const keys = witnessKeys(parsePolicy(policyText)); // every witness's NoteVerifier
 * ```
 */
export function witnessKeys(p: Policy): NoteVerifier[] {
  return [...p.witnesses.values()].map((w) => w.key);
}
