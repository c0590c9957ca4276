#!/usr/bin/env node
// svc: serve, keygen, issue, verify, record, ledger, witness, token; one file per command under
// cli/, dispatched by cli/run.ts (exit codes there).
import { runCli } from './cli/run.js';

runCli(process.argv.slice(2)).then((code) => process.exit(code));
