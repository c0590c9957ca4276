#!/usr/bin/env node
// svc: serve, keygen, issue, verify, record, ledger. Exit codes: 0 ok, 1 does not verify,
// 2 unreadable input or not a recognised bundle, 3 the ledger audit found a problem.
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { join } from 'node:path';
import { namesFor } from '@svc/core';
import { LedgerError } from './ledger/errors.js';
import type { Ledger } from './ledger/ledger.js';
import { loadConfig } from './config.js';
import { ensureKeys, startServer, VERSION } from './server.js';
import { Keyring, ROLES, type Role } from './keys/keyring.js';
import { jsonLogger } from './log.js';
import { Issuer } from './issuer.js';
import { nativeCrypto } from './crypto/node.js';
import { openLedger } from './ledger/open.js';
import { CliError, readInput } from './cli/common.js';
import { recordCommand, verifyCommand } from './cli/verify.js';
import { auditCommand, proveCommand } from './cli/ledger.js';
import { loggedSource, monitorCommand, tilesCommand, tlogProofCommand } from './cli/tlog.js';
import { TlogError } from '@svc/core/tlog';
import { startWitness } from './witness/serve.js';

const HELP: Record<string, string> = {
  main: `svc: reference server and tools for post-quantum-signed answer proofs

Usage: svc <command> [options]

Commands:
  serve     run the reference server (what npm start runs)
  keygen    create or rotate the keyring in the data folder
  issue     sign an answer, append it to the ledger, print the ProofBundle
  verify    verify any bundle offline (exit 0 ok, 1 fails, 2 unreadable)
  record    make an AI Provenance Record from a bundle, offline
  ledger    prove inclusion, audit, export tiles of, or monitor a transparency log
  witness   run a transparency-log witness (c2sp.org/tlog-witness) for the logs of a policy

Run svc <command> --help for its options; svc --version prints the version. A passing verdict attests origin and integrity, never accuracy.`,
  serve: `svc serve [--port N] [--host H] [--data-dir DIR] [--database-url postgres://...]

Environment: PORT (8080), HOST (127.0.0.1), SVC_DATA_DIR (./data), SVC_SERVICE_NAME (svc),
SVC_RATE_VERIFY (40/min), SVC_RATE_READ (120/min), SVC_RATE_MODEL_KEYS (120/min), SVC_RATE_TILES
(6000/min), 0 disables a limit, SVC_TRUSTED_PROXIES (comma list), SVC_LEDGER (on), SVC_LOG_ORIGIN
(keys/log-origin), SVC_LOG_ED25519 (on), SVC_WITNESS_POLICY (none), SVC_WITNESS_TIMEOUT_SECONDS (5),
SVC_WITNESS_SERVE_POLICY (none), SVC_METRICS (on), SVC_DATABASE_URL (none: SQLite in the data folder),
SVC_LEDGER_BATCH_SECONDS (1), SVC_LEDGER_AUDIT_SECONDS (300), SVC_COUNCIL_FILE (<data>/council.json),
SVC_WORKERS (cores), SVC_SLH_DIVERSITY (off), SVC_BRIDGE (on), SVC_LOG (on),
SVC_SHUTDOWN_SECONDS (10), SVC_QUEUE_SIGNATURES (400 per worker), SVC_TASK_TIMEOUT_SECONDS (30),
SVC_BODY_SECONDS (10), SVC_BODY_BUDGET_MB (256). The README's Configuration table says what each means.
Dev keys are made on first start when the data folder has none.`,
  keygen: `svc keygen [--data-dir DIR] [--rotate] [--role ROLE]...

Writes the missing keys (secret files mode 0600). --rotate retires the current keys of the named
roles (all roles when none is named) and makes new ones; retired public keys stay published.
Roles: ${Object.keys(ROLES).join(', ')}`,
  issue: `svc issue (--answer TEXT | --answer-file F) [--prompt TEXT] [--model LABEL] [--logged] [--data-dir DIR] [--database-url URL]

Signs the answer with the keyring, appends its hash to the ledger (a new signed head), and prints
the ProofBundle JSON on stdout. Safe while the server runs. The whole log is checked first (time
grows with its size); a log that fails the check, or cannot be opened, is never signed: exit 3.
--logged waits until the answer is in a published checkpoint (one that met SVC_WITNESS_POLICY's
quorum, when set) and embeds its c2sp.org/tlog-proof as tlogProof; exit 3 if none comes in time.`,
  verify: `svc verify <file|-> [--json] [--keys FILE | --keys-url BASE] [--service NAME]

Verifies any bundle kind offline. --keys pins keys from a saved /api/provenance/pubkey response;
--keys-url fetches them once. Exit 0 when overallOk, 1 when it does not verify, 2 when the input
cannot be read or is not a recognised bundle.`,
  record: `svc record <file|-> [--org NAME] [--keys FILE | --keys-url BASE]

Prints an AI Provenance Record made offline from a proof bundle or run evidence pack. A record is
evidence of origin and integrity, never a declaration of conformity.`,
  ledger: `svc ledger prove --url BASE (--answer TEXT | --answer-sha256 HEX | --leaf HEX) [--keys FILE]
svc ledger prove --url BASE (--answer ... | ...) --tlog-proof [--vkey VKEY]...
svc ledger audit --url BASE [--state FILE] [--keys FILE]
svc ledger tiles --out DIR [--data-dir DIR] [--database-url URL]
svc ledger monitor --tiles URL|DIR --vkey VKEY --state FILE [--policy FILE]

prove: fetches the signed tree head and an inclusion proof, and verifies the path against the
signed root; with --tlog-proof, prints a c2sp.org/tlog-proof@v1 against the served checkpoint.
audit: verifies the signed head and its consistency with the last head seen (kept in the state
file); exits 3 with a report on rollback, fork or a bad signature.
tiles: writes this data folder's (or database's) log as a static tiled log (checkpoint, tiles,
entry bundles) that any web server can serve; incremental, the checkpoint replaced last.
monitor: follows a tiled log (served: BASE/api/transparency/tlog/, or a static copy), checks each
new checkpoint is consistent with the last (state file) and every new entry against its leaf;
exits 3 on a fork, a rollback, tiles that do not match the signed root, or a bad signature; with
--policy (c2sp.org/tlog-policy), also when the witness cosignatures do not meet its quorum.`,
  witness: `svc witness serve --policy FILE [--data-dir DIR] [--database-url URL] [--port N] [--host H]

Cosigns checkpoints of the logs the c2sp.org/tlog-policy file names (its log lines), each only when
it is consistent with the last one cosigned for that log: POST /add-checkpoint, GET /vkeys, and
GET /<sha256(origin) hex>/checkpoint for monitors. Keys (witness-mldsa44, witness-ed25519), the
witness name (SVC_WITNESS_NAME, else kept in keys/witness-name) and witness.sqlite live in the
data folder; with --database-url (SVC_DATABASE_URL) the state is in PostgreSQL, shared by every
witness instance on that database. PORT and HOST as for svc serve.`,
};

// A progress line lives on a terminal's stderr; it is cleared before any result is printed, so a
// result never lands on the end of it.
let progressShown = false;
const clearProgress = () => {
  if (progressShown) process.stderr.write('\r\x1b[K');
  progressShown = false;
};
const out = (s: string) => {
  clearProgress();
  process.stdout.write(`${s}\n`);
};

function portFlag(v: string): number {
  const n = /^\d{1,5}$/.test(v) ? Number(v) : NaN;
  if (!(n >= 0 && n <= 65535)) throw new CliError(`--port must be an integer from 0 to 65535, got ${JSON.stringify(v)}`, 2);
  return n;
}
/** A note for the person at the terminal (standard error), beside results on standard output. */
const note = (s: string) => {
  clearProgress();
  process.stderr.write(`svc: ${s}\n`);
};
const progress = (s: string) => {
  if (!process.stderr.isTTY) return;
  process.stderr.write(`\r\x1b[K${s}`);
  progressShown = true;
};

async function main(argv: string[]): Promise<number> {
  const [cmd, ...rest] = argv;
  if (!cmd || cmd === '--help' || cmd === '-h' || cmd === 'help') {
    out(HELP.main!);
    return 0;
  }
  if (cmd === '--version' || cmd === '-v' || cmd === 'version') {
    out(VERSION);
    return 0;
  }
  if (!(cmd in HELP) || cmd === 'main') throw new CliError(`unknown command ${JSON.stringify(cmd)}; see svc --help`, 2);
  if (rest.includes('--help') || rest.includes('-h')) {
    out(HELP[cmd]!);
    return 0;
  }
  // Generic over the options, so each command's values keep their types.
  const parse = <O extends NonNullable<ParseArgsConfig['options']>>(options: O) => {
    try {
      return parseArgs({ args: rest, options, allowPositionals: true, strict: true as const });
    } catch (e) {
      throw new CliError(`${(e as Error).message}\n\n${HELP[cmd]}`, 2);
    }
  };
  switch (cmd) {
    case 'serve': {
      const { values } = parse({
        port: { type: 'string' },
        host: { type: 'string' },
        'data-dir': { type: 'string' },
        'database-url': { type: 'string' },
      });
      const cfg = loadConfig(process.env, {
        ...(values['database-url'] ? { databaseUrl: values['database-url'] as string } : {}),
        ...(values.port !== undefined ? { port: portFlag(values.port as string) } : {}),
        ...(values.host ? { host: values.host as string } : {}),
        ...(values['data-dir'] ? { dataDir: values['data-dir'] as string } : {}),
      });
      const running = await startServer(cfg);
      // Idempotent, and still listening after the first: Ctrl-C under npm start delivers SIGINT twice
      // (from the terminal and from the launcher), and the second must not cut the graceful shutdown.
      const stop = () => void running.close().then(() => process.exit(0));
      process.on('SIGTERM', stop);
      process.on('SIGINT', stop);
      return new Promise<number>(() => {});
    }
    case 'keygen': {
      const { values } = parse({ 'data-dir': { type: 'string' }, rotate: { type: 'boolean' }, role: { type: 'string', multiple: true } });
      const cfg = loadConfig(process.env, values['data-dir'] ? { dataDir: values['data-dir'] as string } : {});
      const roles = (values.role as string[] | undefined)?.map((r) => {
        if (!(r in ROLES)) throw new CliError(`unknown role ${r}`, 2);
        return r as Role;
      });
      const dir = join(cfg.dataDir, 'keys');
      const written = Keyring.generate(dir, { ...(roles ? { roles } : {}), rotate: !!values.rotate });
      out(written.length ? `wrote ${written.join(', ')} in ${dir}` : `all keys already present in ${dir}`);
      return 0;
    }
    case 'issue': {
      const { values } = parse({
        answer: { type: 'string' },
        'answer-file': { type: 'string' },
        prompt: { type: 'string' },
        model: { type: 'string' },
        logged: { type: 'boolean' },
        'data-dir': { type: 'string' },
        'database-url': { type: 'string' },
      });
      if ((values.answer === undefined) === (values['answer-file'] === undefined))
        throw new CliError('give exactly one of --answer or --answer-file', 2);
      const answer = (values.answer as string | undefined) ?? readInput(values['answer-file'] as string, '--answer-file');
      const cfg = loadConfig(process.env, {
        ...(values['data-dir'] ? { dataDir: values['data-dir'] as string } : {}),
        ...(values['database-url'] ? { databaseUrl: values['database-url'] as string } : {}),
        log: false,
      });
      const log = jsonLogger(false);
      const names = namesFor(cfg.service);
      const ring = ensureKeys(cfg, (e, f) => process.stderr.write(`${JSON.stringify({ event: e, ...f })}\n`));
      // Appending runs the full check first: a log that fails it is refused here (exit 3), and
      // so is a ledger file that cannot be opened at all.
      let ledger: Ledger | null = null;
      try {
        ledger = cfg.ledger ? await openLedger(cfg, names, ring, log, { background: false, batchMs: 0 }) : null;
      } catch (e) {
        throw new CliError(`the ledger cannot be opened: ${e instanceof Error ? e.message : String(e)}`, 3);
      }
      try {
        if (values.logged && !ledger) throw new CliError('--logged needs the ledger (SVC_LEDGER is off)', 2);
        const bundle = await new Issuer(ring, names, ledger, {
          slhDiversity: cfg.slhDiversity,
          bridge: cfg.bridge,
          ...(values.logged && ledger ? { logged: loggedSource(cfg, ledger, log) } : {}),
          ...(nativeCrypto() ? { crypto: nativeCrypto()! } : {}),
        }).issue({
          answer,
          ...(values.prompt !== undefined ? { prompt: values.prompt as string } : {}),
          ...(values.model !== undefined ? { model: values.model as string } : {}),
        });
        out(JSON.stringify(bundle, null, 2));
      } catch (e) {
        if (e instanceof LedgerError && (e.code === 'withheld' || e.code === 'unavailable'))
          throw new CliError(`nothing was signed: ${e.message}`, 3);
        throw e;
      } finally {
        await ledger?.close();
      }
      return 0;
    }
    case 'verify': {
      const { values, positionals } = parse({
        json: { type: 'boolean' },
        keys: { type: 'string' },
        'keys-url': { type: 'string' },
        service: { type: 'string' },
      });
      if (positionals.length !== 1) throw new CliError(`give one file (or - for stdin)\n\n${HELP.verify}`, 2);
      return verifyCommand(positionals[0]!, values, out);
    }
    case 'record': {
      const { values, positionals } = parse({
        org: { type: 'string' },
        keys: { type: 'string' },
        'keys-url': { type: 'string' },
        service: { type: 'string' },
      });
      if (positionals.length !== 1) throw new CliError(`give one file (or - for stdin)\n\n${HELP.record}`, 2);
      return recordCommand(positionals[0]!, values, out, note);
    }
    case 'witness': {
      const { values, positionals } = parse({
        policy: { type: 'string' },
        'data-dir': { type: 'string' },
        'database-url': { type: 'string' },
        port: { type: 'string' },
        host: { type: 'string' },
      });
      if (positionals[0] !== 'serve') throw new CliError(`a witness subcommand is required: serve\n\n${HELP.witness}`, 2);
      if (!values.policy) throw new CliError(`--policy is required\n\n${HELP.witness}`, 2);
      const cfg = loadConfig(process.env, {
        ...(values.port !== undefined ? { port: portFlag(values.port as string) } : {}),
        ...(values.host ? { host: values.host as string } : {}),
        ...(values['data-dir'] ? { dataDir: values['data-dir'] as string } : {}),
        ...(values['database-url'] ? { databaseUrl: values['database-url'] as string } : {}),
      });
      const policyText = readInput(values.policy as string, '--policy');
      let running: Awaited<ReturnType<typeof startWitness>>;
      try {
        running = await startWitness(cfg, policyText, jsonLogger(cfg.log));
      } catch (e) {
        if (e instanceof TlogError) throw new CliError(`--policy ${values.policy}: ${e.message}`, 2);
        throw e;
      }
      const stop = () => void running.close().then(() => process.exit(0));
      process.on('SIGTERM', stop);
      process.on('SIGINT', stop);
      return new Promise<number>(() => {});
    }
    case 'ledger': {
      const { values, positionals } = parse({
        url: { type: 'string' },
        answer: { type: 'string' },
        'answer-sha256': { type: 'string' },
        leaf: { type: 'string' },
        'tlog-proof': { type: 'boolean' },
        vkey: { type: 'string', multiple: true },
        state: { type: 'string' },
        keys: { type: 'string' },
        out: { type: 'string' },
        tiles: { type: 'string' },
        policy: { type: 'string' },
        'data-dir': { type: 'string' },
        'database-url': { type: 'string' },
      });
      const sub = positionals[0];
      if (sub !== 'prove' && sub !== 'audit' && sub !== 'tiles' && sub !== 'monitor')
        throw new CliError(
          `${sub === undefined ? 'a ledger subcommand is required' : `unknown subcommand ledger ${sub}`}\n\n${HELP.ledger}`,
          2,
        );
      if (sub === 'tiles') {
        if (!values.out) throw new CliError(`--out is required\n\n${HELP.ledger}`, 2);
        const cfg = loadConfig(process.env, {
          ...(values['data-dir'] ? { dataDir: values['data-dir'] as string } : {}),
          ...(values['database-url'] ? { databaseUrl: values['database-url'] as string } : {}),
          log: false,
        });
        const names = namesFor(cfg.service);
        const ring = ensureKeys(cfg, (e, f) => process.stderr.write(`${JSON.stringify({ event: e, ...f })}\n`));
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
  }
  return 2;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (e: unknown) => {
    if (e instanceof CliError) {
      process.stderr.write(
        `svc: ${e.message.split('\n')[0]}\n${e.message.includes('\n') ? `${e.message.slice(e.message.indexOf('\n') + 1)}\n` : ''}`,
      );
      process.exit(e.exitCode);
    }
    process.stderr.write(`svc: ${e instanceof Error ? e.message : String(e)}\n`);
    process.exit(2);
  },
);
