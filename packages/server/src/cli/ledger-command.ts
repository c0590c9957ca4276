// `svc ledger`: its subcommands (prove, audit, tiles, monitor, subtree) from one set of options.
import { namesFor } from '@svc/core';
import { loadConfig } from '../config.js';
import type { Ledger } from '../ledger/ledger.js';
import { openLedger } from '../tlog/open.js';
import { jsonLogger } from '../log.js';
import { ensureKeys } from '../keys/ensure.js';
import { CliError, requireKeyring } from './common.js';
import { HELP } from './help.js';
import { clearProgress, io, note, out, parseFor, progress } from './io.js';
import { auditCommand, proveCommand } from './ledger.js';
import { monitorCommand, subtreeCommand, tilesCommand, tlogProofCommand } from './tlog.js';

export async function ledgerCommand(args: string[]): Promise<number> {
  const parse = <O extends Parameters<typeof parseFor>[2]>(options: O) => parseFor('ledger', args, options);
  const { values, positionals } = parse({
    url: { type: 'string' },
    answer: { type: 'string' },
    'answer-sha256': { type: 'string' },
    leaf: { type: 'string' },
    'tlog-proof': { type: 'boolean' },
    vkey: { type: 'string', multiple: true },
    state: { type: 'string' },
    keys: { type: 'string' },
    'allow-unpinned': { type: 'boolean' },
    out: { type: 'string' },
    tiles: { type: 'string' },
    policy: { type: 'string' },
    'data-dir': { type: 'string' },
    'database-url': { type: 'string' },
    request: { type: 'string' },
  });
  const sub = positionals[0];
  if (sub !== 'prove' && sub !== 'audit' && sub !== 'tiles' && sub !== 'monitor' && sub !== 'subtree')
    throw new CliError(
      `${sub === undefined ? 'a ledger subcommand is required' : `unknown subcommand ledger ${sub}`}\n\n${HELP.ledger}`,
      2,
    );
  if (sub === 'tiles') {
    if (!values.out) throw new CliError(`--out is required\n\n${HELP.ledger}`, 2);
    const cfg = loadConfig(io().env, {
      ...(values['data-dir'] ? { dataDir: values['data-dir'] as string } : {}),
      ...(values['database-url'] ? { databaseUrl: values['database-url'] as string } : {}),
      log: false,
    });
    const names = namesFor(cfg.service);
    requireKeyring(cfg.dataDir);
    const ring = ensureKeys(cfg, (e, f) => io().stderr.write(`${JSON.stringify({ event: e, ...f })}\n`));
    let ledger: Ledger;
    try {
      ledger = await openLedger(cfg, names, ring, jsonLogger(false), { background: false, batchMs: 0 });
    } catch (e) {
      throw new CliError(`the ledger cannot be opened: ${e instanceof Error ? e.message : String(e)}`, 3);
    }
    try {
      const code = await tilesCommand(ledger, values.out as string, out, progress);
      clearProgress();
      return code;
    } finally {
      await ledger.close();
    }
  }
  if (sub === 'subtree') {
    if (!values.request || !values.answer || !values.vkey?.length)
      throw new CliError(`--request, --answer and --vkey are required\n\n${HELP.ledger}`, 2);
    return subtreeCommand({ request: values.request, answer: values.answer as string, vkeys: values.vkey }, out);
  }
  if (sub === 'monitor') {
    if (!values.tiles || !values.vkey?.length || !values.state)
      throw new CliError(`--tiles, --vkey and --state are required\n\n${HELP.ledger}`, 2);
    if (values.vkey.length > 1) throw new CliError('give one --vkey: the log key the checkpoints must be signed with', 2);
    const code = await monitorCommand(
      {
        tiles: values.tiles,
        vkey: values.vkey[0]!,
        state: values.state,
        ...(values.policy ? { policy: values.policy as string } : {}),
      },
      out,
      progress,
    );
    clearProgress();
    return code;
  }
  if (!values.url) throw new CliError(`--url is required\n\n${HELP.ledger}`, 2);
  if (sub === 'prove') {
    if (values['tlog-proof']) return tlogProofCommand({ ...values, url: values.url }, out, note);
    return proveCommand({ ...values, url: values.url }, out);
  }
  if (sub === 'audit') {
    const code = await auditCommand({ ...values, url: values.url }, out, progress);
    clearProgress();
    return code;
  }
  throw new CliError(`unknown ledger command ${JSON.stringify(sub)}\n\n${HELP.ledger}`, 2);
}
