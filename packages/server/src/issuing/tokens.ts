// Bearer tokens of the private issuing listener. The file (SVC_ISSUE_TOKENS) holds one named token
// per line as its SHA-256, never the token: `<name> sha256:<64 hex>`, `#` comments. Several names at
// once make rotation a matter of adding the new one, moving callers, deleting the old line. The file
// is read again whenever it changes, so a deleted line revokes at the next request; a file that
// cannot be read or parsed admits nobody (fails closed) until it is mended.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { appendFileSync, existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { rereadOnChange } from '../util/reread.js';

/** A token's name: what logs and rate limits know it by. */
export const TOKEN_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
const LINE = /^([^\s#]+)\s+sha256:([0-9a-f]{64})\s*$/;
/** Tokens this project makes: a prefix a secret scanner can match, then 256 random bits. */
export const TOKEN_PREFIX = 'svc_it_';
const PREFIX = TOKEN_PREFIX;

export interface TokenEntry {
  name: string;
  hash: Uint8Array;
}

/** The entries of a token file's text, or an error naming the first bad line. */
export function parseTokens(text: string): TokenEntry[] {
  const out: TokenEntry[] = [];
  const names = new Set<string>();
  for (const [i, raw] of text.split(/\r?\n/).entries()) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    const m = LINE.exec(line);
    if (!m || !TOKEN_NAME.test(m[1]!))
      throw new Error(`line ${i + 1} is not "<name> sha256:<64 lowercase hex>" (names: letters, digits, . _ -, at most 64)`);
    if (names.has(m[1]!)) throw new Error(`line ${i + 1}: the name ${m[1]} is given twice`);
    names.add(m[1]!);
    out.push({ name: m[1]!, hash: new Uint8Array(Buffer.from(m[2]!, 'hex')) });
  }
  return out;
}

const sha256 = (s: string) => new Uint8Array(createHash('sha256').update(s, 'utf8').digest());

// WF-ISSUE-TOKENS
/**
 * The name of the entry a presented token matches, or null. Every entry is compared, each in
 * constant time over hashes of fixed length: neither the answer's timing nor its path says which
 * entry came close.
 */
export function matchToken(entries: readonly TokenEntry[], presented: string): string | null {
  const h = sha256(presented);
  let found: string | null = null;
  for (const e of entries) if (timingSafeEqual(e.hash, h) && found === null) found = e.name;
  return found;
}

/**
 * The token file, read again when its size, time or inode changes.
 *
 * @example
 * ```ts
 * const tokens = new TokenFile('./data/issue-tokens', log);
 * tokens.match(bearer); // 'billing-service' or null
 * ```
 */
export class TokenFile {
  private readonly entries: () => TokenEntry[];

  constructor(
    readonly path: string,
    log: (event: string, fields: Record<string, unknown>) => void,
  ) {
    this.entries = rereadOnChange(path, (present) => {
      try {
        const unsafe = present ? unsafeTokenFile(path) : null;
        if (unsafe) {
          // As OpenSSH's StrictModes: a line anyone may append would admit their token.
          log('issue_tokens_unsafe', { file: path, error: unsafe, hint: `chmod go-w ${path} and its folder` });
          return [];
        }
        const entries = present ? parseTokens(readFileSync(path, 'utf8')) : [];
        log('issue_tokens_loaded', { file: path, tokens: entries.length });
        return entries;
      } catch (e) {
        log('issue_tokens_invalid', { file: path, error: e instanceof Error ? e.message : String(e) });
        return [];
      }
    });
  }

  /** The name the token belongs to, or null (also while the file is missing or malformed). */
  match(presented: string): string | null {
    return matchToken(this.entries(), presented);
  }

  /** How many tokens are accepted now. */
  count(): number {
    return this.entries().length;
  }
}

/**
 * Why a token file cannot be trusted, or null: the file, or its folder, is writable by group or
 * others, so anyone with that access could add a token. Not judged where modes mean nothing (Windows).
 *
 * @example
 * ```ts
 * unsafeTokenFile('./data/issue-tokens'); // null, or 'the file is writable by group or others (mode 666)'
 * ```
 */
export function unsafeTokenFile(path: string): string | null {
  if (process.platform === 'win32') return null;
  const file = statSync(path).mode;
  if (file & 0o022) return `the file is writable by group or others (mode ${(file & 0o777).toString(8)})`;
  const dir = statSync(dirname(resolve(path))).mode;
  // A sticky folder (such as /tmp) lets nobody replace another's file.
  if (dir & 0o022 && !(dir & 0o1000)) return `its folder is writable by group or others (mode ${(dir & 0o777).toString(8)})`;
  return null;
}

/** A new token and the line that admits it; the token is shown once and kept nowhere. */
export function newToken(name: string): { token: string; line: string } {
  if (!TOKEN_NAME.test(name)) throw new Error(`a token name is letters, digits, . _ - (at most 64), got ${JSON.stringify(name)}`);
  const token = PREFIX + randomBytes(32).toString('base64url');
  return { token, line: `${name} sha256:${Buffer.from(sha256(token)).toString('hex')}` };
}

/** Add a named token to a file (created with mode 0600), refusing a name it already holds. */
export function addToken(file: string, name: string): string {
  const text = existsSync(file) ? readFileSync(file, 'utf8') : '';
  if (parseTokens(text).some((e) => e.name === name)) throw new Error(`${file} already has a token named ${name}: revoke it first`);
  const { token, line } = newToken(name);
  if (text === '') writeFileSync(file, `# svc issuing tokens: <name> sha256:<hash of the token>\n${line}\n`, { mode: 0o600 });
  else appendFileSync(file, `${text.endsWith('\n') ? '' : '\n'}${line}\n`);
  return token;
}

/** Remove a named token from a file; false when it held none by that name. */
export function revokeToken(file: string, name: string): boolean {
  if (!existsSync(file)) return false;
  const lines = readFileSync(file, 'utf8').split('\n');
  const kept = lines.filter((l) => LINE.exec(l.trim())?.[1] !== name);
  if (kept.length === lines.length) return false;
  writeFileSync(file, kept.join('\n'));
  return true;
}
