// `svc keygen`: write the missing keys, or rotate those of the named roles.
import { join } from 'node:path';
import { loadConfig } from '../config.js';
import { Keyring, ROLES, type Role } from '../keys/keyring.js';
import { CliError } from './common.js';
import { io, out, parseFor } from './io.js';

export async function keygenCommand(args: string[]): Promise<number> {
  const parse = <O extends Parameters<typeof parseFor>[2]>(options: O) => parseFor('keygen', args, options);
  const { values } = parse({ 'data-dir': { type: 'string' }, rotate: { type: 'boolean' }, role: { type: 'string', multiple: true } });
  const cfg = loadConfig(io().env, values['data-dir'] ? { dataDir: values['data-dir'] as string } : {});
  const roles = (values.role as string[] | undefined)?.map((r) => {
    if (!(r in ROLES)) throw new CliError(`unknown role ${r}`, 2);
    return r as Role;
  });
  const dir = join(cfg.dataDir, 'keys');
  const written = Keyring.generate(dir, { ...(roles ? { roles } : {}), rotate: !!values.rotate });
  out(written.length ? `wrote ${written.join(', ')} in ${dir}` : `all keys already present in ${dir}`);
  return 0;
}
