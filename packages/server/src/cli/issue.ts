// `svc issue`: sign answers with the keyring, append them to the ledger, print the ProofBundles.
// One answer from flags, or (--jsonl) one answer object per line of standard input and one bundle
// per line of output, in batches, each batch one append under one signed head.
import { createInterface } from 'node:readline';
import { writeFileSync } from 'node:fs';
import { namesFor } from '@svc/core';
import type { EnvelopeFormat } from '@svc/core/issue';
import { loadConfig, type Config } from '../config.js';
import type { Issuer } from '../issuing/issuer.js';
import { issuerOf } from '../issuing/open.js';
import { parseIssueInput, MAX_BATCH } from '../issuing/input.js';
import { LedgerError } from '../ledger/errors.js';
import type { Ledger } from '../ledger/ledger.js';
import { openLedger } from '../tlog/open.js';
import { publishedCheckpoints } from '../tlog/witnessing.js';
import type { Logger } from '../log.js';
import { ensureKeys } from '../keys/ensure.js';
import { CliError, readInput, requireKeyring } from './common.js';
import { io, jsonForTerminal, out, parseFor } from './io.js';
import { isSvcError, parseDocument } from '@svc/core';
import { fromBase64Url } from '@svc/core/primitives';
import type { IssueInput } from '../issuing/issuer.js';
import { parseExport, parseRun, parseTranscript } from '../issuing/kind-input.js';
import type { ExportInput, RunInput, TranscriptInput } from '../issuing/kinds.js';

export async function issueCommand(args: string[]): Promise<number> {
  const parse = <O extends Parameters<typeof parseFor>[2]>(options: O) => parseFor('issue', args, options);
  const { values } = parse({
    answer: { type: 'string' },
    'answer-file': { type: 'string' },
    jsonl: { type: 'boolean' },
    transcript: { type: 'string' },
    run: { type: 'string' },
    export: { type: 'string' },
    prompt: { type: 'string' },
    model: { type: 'string' },
    logged: { type: 'boolean' },
    'council-grounded': { type: 'boolean' },
    envelopes: { type: 'string' },
    scitt: { type: 'string' },
    'data-dir': { type: 'string' },
    'database-url': { type: 'string' },
  });
  const kind = (['transcript', 'run', 'export'] as const).find((k) => values[k] !== undefined);
  const given = [values.answer, values['answer-file'], values.jsonl, values.transcript, values.run, values.export].filter(
    (v) => v !== undefined,
  ).length;
  if (given !== 1) throw new CliError('give exactly one of --answer, --answer-file, --jsonl, --transcript, --run or --export', 2);
  if (kind && (values.prompt !== undefined || values.logged || values.scitt !== undefined))
    throw new CliError(
      `--${kind} FILE takes its own members (the issuing API's body): --prompt, --logged and --scitt are for one answer`,
      2,
    );
  // The kind's body, read and checked before the keys or the ledger are touched.
  const kindInput = kind ? kindBody(kind, values[kind] as string, values.model as string | undefined) : null;
  if (values.jsonl && values.scitt !== undefined)
    throw new CliError('--scitt FILE writes one statement; with --jsonl ask for "scitt": true per line (the bundle carries it)', 2);
  const envelopes = parseEnvelopes(values.envelopes as string | undefined);
  const cfg = loadConfig(io().env, {
    ...(values['data-dir'] ? { dataDir: values['data-dir'] as string } : {}),
    ...(values['database-url'] ? { databaseUrl: values['database-url'] as string } : {}),
    log: false,
  });
  if (!cfg.ledger && (values.logged || values.scitt !== undefined))
    throw new CliError(`${values.logged ? '--logged' : '--scitt'} needs the ledger (SVC_LEDGER is off)`, 2);
  const answer =
    values.jsonl || kind ? null : ((values.answer as string | undefined) ?? readInput(values['answer-file'] as string, '--answer-file'));
  const log: Logger = () => {};
  requireKeyring(cfg.dataDir);
  const ring = ensureKeys(cfg, (e, f) => io().stderr.write(`${JSON.stringify({ event: e, ...f })}\n`));
  // Appending runs the start check first (O(log n) reads, whatever the log's age): a log withheld
  // by it (a rollback, a fork at a size it reads) is refused here (exit 3), and so is a ledger file
  // that cannot be opened at all. The whole log is left to the servers' background check.
  let ledger: Ledger | null = null;
  try {
    ledger = cfg.ledger ? await openLedger(cfg, namesFor(cfg.service), ring, log, { background: false, batchMs: 0 }) : null;
  } catch (e) {
    throw new CliError(`the ledger cannot be opened: ${e instanceof Error ? e.message : String(e)}`, 3);
  }
  const issuer = issuerOf(cfg, ring, ledger, ledger ? publishedCheckpoints(cfg, ledger, log) : null, envelopes.length ? { envelopes } : {});
  try {
    if (kindInput) {
      const bundle =
        kindInput.kind === 'transcript'
          ? await issuer.issueTranscript(kindInput.input)
          : kindInput.kind === 'run'
            ? await issuer.issueRun(kindInput.input)
            : await issuer.issueExport(kindInput.input);
      out(jsonForTerminal(bundle));
      return 0;
    }
    if (answer === null) return await issueLines(issuer, cfg);
    const bundle = await issuer.issue({
      answer,
      ...(values.prompt !== undefined ? { prompt: values.prompt as string } : {}),
      ...(values.model !== undefined ? { model: values.model as string } : {}),
      ...(values.logged ? { logged: true } : {}),
      ...(values.scitt !== undefined ? { scitt: true } : {}),
      council_grounded: values['council-grounded'] === true,
    });
    if (values.scitt !== undefined) writeFileSync(values.scitt as string, fromBase64Url((bundle as { scitt?: string }).scitt!)!);
    out(jsonForTerminal(bundle));
  } catch (e) {
    if (e instanceof LedgerError && (e.code === 'withheld' || e.code === 'unavailable'))
      throw new CliError(`nothing was signed: ${e.message}`, 3);
    if (e instanceof LedgerError && e.code === 'invalid_request') throw new CliError(e.message, 2);
    throw e;
  } finally {
    await ledger?.close();
  }
  return 0;
}

type KindBody =
  | { kind: 'transcript'; input: TranscriptInput<IssueInput> }
  | { kind: 'run'; input: RunInput }
  | { kind: 'export'; input: ExportInput };

/** --transcript/--run/--export FILE (or - for stdin): the issuing API's body for that kind, checked. */
function kindBody(kind: 'transcript' | 'run' | 'export', file: string, model: string | undefined): KindBody {
  let body: unknown;
  try {
    body = parseDocument(readInput(file, `--${kind}`));
  } catch (e) {
    if (e instanceof CliError) throw e;
    throw new CliError(`--${kind} ${file} is not valid JSON${isSvcError(e) ? ` (${e.message})` : ''}`, 2);
  }
  if (model !== undefined && typeof body === 'object' && body !== null && kind !== 'transcript') body = { ...body, model };
  const parsed = kind === 'transcript' ? parseTranscript(body, { ledger: true }) : kind === 'run' ? parseRun(body) : parseExport(body);
  if (typeof parsed === 'string') throw new CliError(`--${kind} ${file}: ${parsed}`, 2);
  return { kind, input: parsed } as KindBody;
}

/**
 * --jsonl: each line an answer object (the issuing API's), each output line its bundle, in input
 * order. Lines read while a batch is signed make the next batch (at most MAX_BATCH), so a file goes
 * in batches and a writer that waits gets each answer back at once. A bad line stops the run with
 * exit 2 naming it; every bundle printed before it is in the log.
 */
async function issueLines(issuer: Issuer, cfg: Config): Promise<number> {
  const rl = createInterface({ input: io().stdin, crlfDelay: Number.POSITIVE_INFINITY });
  const pending: { line: number; text: string }[] = [];
  const sign = async (batch: { line: number; text: string }[]) => {
    const inputs = batch.map(({ line, text }) => {
      let v: unknown;
      try {
        // The HTTP API's reader: a repeated member, an inexact number or a line over 2 MB is refused
        // here as there, never read one way by one entry point and another by the other.
        v = parseDocument(text);
      } catch (e) {
        throw new CliError(`line ${line}: ${(e as Error).message}`, 2);
      }
      const r = parseIssueInput(v, cfg);
      if (typeof r === 'string') throw new CliError(`line ${line}: ${r}`, 2);
      return r;
    });
    const bundles = await issuer.issueMany(inputs);
    // Written before the next batch, and before exit: a pipe past its buffer takes the rest later.
    await new Promise<void>((done, fail) =>
      io().stdout.write(bundles.map((b) => `${JSON.stringify(b)}\n`).join(''), (e) => (e ? fail(e) : done())),
    );
  };
  let busy = false;
  let pump: Promise<void> = Promise.resolve();
  let failed: unknown = null;
  const kick = () => {
    if (busy || failed) return;
    busy = true;
    pump = (async () => {
      while (pending.length > 0 && !failed) await sign(pending.splice(0, MAX_BATCH));
    })()
      .catch((e) => {
        failed ??= e;
      })
      .finally(() => {
        busy = false;
      });
  };
  let lineNo = 0;
  for await (const text of rl) {
    lineNo++;
    if (failed) break;
    if (text.trim() === '') continue;
    pending.push({ line: lineNo, text });
    // Reading stays at most one batch ahead of signing: a huge file is not held in memory.
    if (pending.length >= MAX_BATCH) await pump;
    kick();
  }
  rl.close();
  await pump;
  kick();
  await pump;
  if (failed) throw failed;
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
