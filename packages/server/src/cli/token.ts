// `svc token add NAME | revoke NAME | list`: the private issuing listener's bearer tokens. The
// file keeps each token's SHA-256 only; `add` prints the token once, on stdout, and keeps it nowhere.
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { loadConfig } from '../config.js';
import { addToken, parseTokens, revokeToken, unsafeTokenFile } from '../issuing/tokens.js';
import { CliError } from './common.js';
import { HELP } from './help.js';
import { io, note, out, parseFor } from './io.js';

export async function tokenCommand(args: string[]): Promise<number> {
  const { values, positionals } = parseFor('token', args, { file: { type: 'string' }, 'data-dir': { type: 'string' } });
  const [sub, name, ...extra] = positionals;
  const cfg = loadConfig(io().env, { ...(values['data-dir'] ? { dataDir: values['data-dir'] as string } : {}), log: false });
  const file = resolve((values.file as string | undefined) ?? io().env.SVC_ISSUE_TOKENS ?? resolve(cfg.dataDir, 'issue-tokens'));
  if (extra.length) throw new CliError(`unexpected ${JSON.stringify(extra[0])}\n\n${HELP.token}`, 2);
  try {
    if (sub === 'add' && name) {
      const token = addToken(file, name);
      note(`token ${name} added to ${file}; it is shown once, here: keep it as a secret`);
      const unsafe = unsafeTokenFile(file);
      if (unsafe) note(`warning: ${file}: ${unsafe}; the issuing listener admits no token from it until: chmod go-w`);
      out(token);
      return 0;
    }
    if (sub === 'revoke' && name) {
      if (!revokeToken(file, name)) throw new CliError(`${file} has no token named ${name}`, 1);
      note(`token ${name} revoked: the issuing listener refuses it from its next request`);
      return 0;
    }
    if (sub === 'list' && !name) {
      const entries = existsSync(file) ? parseTokens(readFileSync(file, 'utf8')) : [];
      out(entries.map((e) => e.name).join('\n') || `(no tokens in ${file})`);
      return 0;
    }
  } catch (e) {
    if (e instanceof CliError) throw e;
    throw new CliError(e instanceof Error ? e.message : String(e), 2);
  }
  throw new CliError(
    `${sub === undefined ? 'a token subcommand is required' : `svc token ${sub} needs ${sub === 'list' ? 'no name' : 'a NAME'}`}\n\n${HELP.token}`,
    2,
  );
}
