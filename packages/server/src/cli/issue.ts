// `svc issue`: sign an answer with the keyring, append it to the ledger, print the ProofBundle.
import { namesFor, toBase64Url, type ProofBundle } from '@svc/core';
import type { EnvelopeFormat } from '@svc/core';
import { loadConfig } from '../config.js';
import { nativeCrypto } from '../crypto/node.js';
import { Issuer } from '../issuer.js';
import { LedgerError } from '../ledger/errors.js';
import type { Ledger } from '../ledger/ledger.js';
import { openLedger } from '../tlog/open.js';
import type { Logger } from '../log.js';
import { ensureKeys } from '../keys/ensure.js';
import { CliError, readInput, requireKeyring } from './common.js';
import { clearProgress, jsonForTerminal, out, parseFor, progress } from './io.js';
import { loggedSource } from './tlog.js';
import { answerStatement, scittService } from '../scitt/service.js';
import { writeFileSync } from 'node:fs';

export async function issueCommand(args: string[]): Promise<number> {
  const parse = <O extends Parameters<typeof parseFor>[2]>(options: O) => parseFor('issue', args, options);
  const { values } = parse({
    answer: { type: 'string' },
    'answer-file': { type: 'string' },
    prompt: { type: 'string' },
    model: { type: 'string' },
    logged: { type: 'boolean' },
    envelopes: { type: 'string' },
    scitt: { type: 'string' },
    'data-dir': { type: 'string' },
    'database-url': { type: 'string' },
  });
  if ((values.answer === undefined) === (values['answer-file'] === undefined))
    throw new CliError('give exactly one of --answer or --answer-file', 2);
  const answer = (values.answer as string | undefined) ?? readInput(values['answer-file'] as string, '--answer-file');
  const envelopes = parseEnvelopes(values.envelopes as string | undefined);
  const cfg = loadConfig(process.env, {
    ...(values['data-dir'] ? { dataDir: values['data-dir'] as string } : {}),
    ...(values['database-url'] ? { databaseUrl: values['database-url'] as string } : {}),
    log: false,
  });
  const log: Logger = () => {};
  const names = namesFor(cfg.service);
  requireKeyring(cfg.dataDir);
  const ring = ensureKeys(cfg, (e, f) => process.stderr.write(`${JSON.stringify({ event: e, ...f })}\n`));
  // Appending runs the full check first: a log that fails it is refused here (exit 3), and
  // so is a ledger file that cannot be opened at all.
  let ledger: Ledger | null = null;
  try {
    ledger = cfg.ledger ? await openLedger(cfg, names, ring, log, { background: false, batchMs: 0 }) : null;
  } catch (e) {
    throw new CliError(`the ledger cannot be opened: ${e instanceof Error ? e.message : String(e)}`, 3);
  }
  // The whole log is checked before anything is signed (14.5 s at 10^6 leaves): say so on a terminal.
  const audit = ledger?.audit;
  const ticker = audit
    ? setInterval(() => {
        const p = audit.scanProgress();
        if (p) progress(`checking the whole log before signing: ${p.done}/${p.total} leaves`);
      }, 250)
    : undefined;
  if (audit) progress('checking the whole log before signing');
  try {
    if (values.logged && !ledger) throw new CliError('--logged needs the ledger (SVC_LEDGER is off)', 2);
    if (values.scitt !== undefined && !ledger) throw new CliError('--scitt needs the ledger (SVC_LEDGER is off)', 2);
    const bundle = await new Issuer(ring, names, ledger, {
      slhDiversity: cfg.slhDiversity,
      bridge: cfg.bridge,
      ...(values.logged && ledger ? { logged: loggedSource(cfg, ledger, log) } : {}),
      ...(nativeCrypto() ? { crypto: nativeCrypto()! } : {}),
      ...(envelopes.length ? { envelopes } : {}),
    }).issue({
      answer,
      ...(values.prompt !== undefined ? { prompt: values.prompt as string } : {}),
      ...(values.model !== undefined ? { model: values.model as string } : {}),
    });
    if (values.scitt !== undefined && ledger) {
      // The Transparent Statement: our Signed Statement about this answer, registered in the same
      // log, with a receipt per log key for the published (witnessed) checkpoint that covers it.
      const statement = answerStatement(ring, names, answer, bundle.receipt.ts);
      const published = loggedSource(cfg, ledger, log);
      const scitt = scittService(cfg, names, ring, {
        append: (l) => ledger!.append(l),
        findAll: (d) => ledger!.findAll(d),
        paths: (i, size) => ledger!.paths(i, size),
        checkpoint: published.checkpoint,
      });
      const transparent = await scitt.transparent(statement, published.timeoutMs);
      writeFileSync(values.scitt as string, transparent);
      // The bundle carries it too, unsigned like tlogProof: verifyBundle checks it with scittChecker.
      (bundle as ProofBundle & { scitt?: string }).scitt = toBase64Url(transparent);
    }
    clearInterval(ticker);
    clearProgress();
    out(jsonForTerminal(bundle));
  } catch (e) {
    if (e instanceof LedgerError && (e.code === 'withheld' || e.code === 'unavailable'))
      throw new CliError(`nothing was signed: ${e.message}`, 3);
    throw e;
  } finally {
    clearInterval(ticker);
    clearProgress();
    await ledger?.close();
  }
  return 0;
}

/** `--envelopes jws,cose`: the formats named, each once; anything else is a usage error (exit 2). */
export function parseEnvelopes(value: string | undefined): EnvelopeFormat[] {
  if (value === undefined) return [];
  const formats = value.split(',').map((f) => f.trim());
  const bad = formats.find((f) => f !== 'jws' && f !== 'cose');
  if (bad !== undefined || formats.length === 0 || new Set(formats).size !== formats.length)
    throw new CliError(`--envelopes takes jws, cose or jws,cose (got ${JSON.stringify(value)})`, 2);
  return formats as EnvelopeFormat[];
}
