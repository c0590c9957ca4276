#!/usr/bin/env node
// npm run test:stress -- [--runs K] [--busy B] [--docs] [vitest filters...]
// The suite (or the files named) run K times beside B processes that keep a core busy each, as a
// loaded CI machine is: prints every test that failed and how often, and with --docs writes the
// table into docs/reliability.md. A test that fails here says nothing about the code and hides the
// failures that do: it is a bug to fix, not a rerun to hope for.
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { onNode24 } from '../lib/node24.mjs';
import { root } from '../lib/root.mjs';

// The server's files need Node 24 (node:sqlite): run again on it when this Node is older.
onNode24();

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { runs: { type: 'string', default: '5' }, busy: { type: 'string', default: '2' }, docs: { type: 'boolean' } },
});
const runs = Number(values.runs);
const busy = Number(values.busy);
const dir = mkdtempSync(join(tmpdir(), 'svc-stress-'));
// Each run's temporary folders land in the run's own folder (as npm test's do), removed after it;
// readable by all for PostgreSQL's server, which runs as its own user when the tests run as root.
chmodSync(dir, 0o755);
const spinners = Array.from({ length: busy }, () => spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' }));
const stop = () => {
  for (const s of spinners) s.kill('SIGKILL');
};
process.on('exit', stop);
process.on('SIGINT', () => process.exit(130));

const failures = new Map();
const durations = [];
let tests = 0;
for (let i = 1; i <= runs; i++) {
  const out = join(dir, `run-${i}.json`);
  const tmp = join(dir, `tmp-${i}`);
  mkdirSync(tmp, { mode: 0o755 });
  const started = Date.now();
  const r = spawnSync(
    process.execPath,
    [
      join(root, 'node_modules/vitest/vitest.mjs'),
      'run',
      '--project',
      'core',
      '--project',
      'examples',
      '--project',
      'server',
      '--reporter=dot',
      '--reporter=json',
      `--outputFile.json=${out}`,
      ...positionals,
    ],
    { cwd: root, stdio: ['ignore', 'ignore', 'inherit'], env: { ...process.env, FORCE_COLOR: '0', TMPDIR: tmp } },
  );
  rmSync(tmp, { recursive: true, force: true });
  durations.push((Date.now() - started) / 1000);
  let report;
  try {
    report = JSON.parse(readFileSync(out, 'utf8'));
  } catch {
    console.log(`run ${i}: vitest wrote no report (exit ${r.status ?? r.signal})`);
    failures.set('(the run itself)', [...(failures.get('(the run itself)') ?? []), `exit ${r.status ?? r.signal}`]);
    continue;
  }
  tests = Math.max(tests, report.numTotalTests);
  for (const file of report.testResults)
    for (const t of file.assertionResults)
      if (t.status === 'failed') {
        const name = `${file.name.replace(root, '')} > ${t.fullName}`;
        failures.set(name, [...(failures.get(name) ?? []), (t.failureMessages?.[0] ?? '').split('\n')[0].slice(0, 160)]);
        // The whole message too, as it comes: a failure under load is rare, and what it printed
        // (a test's own diagnostics) is what names its cause.
        console.log(`run ${i}: FAILED ${name}\n${t.failureMessages?.join('\n') ?? ''}\n`);
      }
  console.log(`run ${i} of ${runs}: ${report.numFailedTests} failed of ${report.numTotalTests}, ${durations.at(-1).toFixed(0)} s`);
}
stop();
rmSync(dir, { recursive: true, force: true });

const rows = [...failures].map(
  ([name, how]) => `| ${name.replaceAll('|', '\\|')} | ${how.length} of ${runs} | ${how[0]?.replaceAll('|', '\\|') ?? ''} |`,
);
const table = [
  `${runs} runs of ${positionals.length ? positionals.join(' ') : 'the vitest suite (core, examples, server)'} beside ${busy} busy processes, ${tests} tests each; ${cpus()[0]?.model ?? 'unknown CPU'}, ${availableParallelism()} cores, Node ${process.versions.node}; ${durations.map((d) => `${d.toFixed(0)} s`).join(', ')}.`,
  '',
  rows.length ? `| test | failed | first message |\n|---|---|---|\n${rows.join('\n')}` : 'No test failed.',
].join('\n');
console.log(`\n${table}`);
if (values.docs) {
  const path = join(root, 'docs/reliability.md');
  const doc = readFileSync(path, 'utf8');
  const heading = '## Under load: npm run test:stress';
  const section = `${heading}\n\n${table}\n`;
  const at = doc.indexOf(heading);
  const next = at < 0 ? -1 : doc.indexOf('\n## ', at + heading.length);
  writeFileSync(path, at < 0 ? `${doc.trimEnd()}\n\n${section}` : `${doc.slice(0, at)}${section}${next < 0 ? '' : doc.slice(next)}`);
}
process.exit(rows.length ? 1 : 0);
