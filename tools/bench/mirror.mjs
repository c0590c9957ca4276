// Mirroring (issue 55): add-entries throughput of `svc mirror serve` for a log of 10^6 entries, in
// entries per second and per CPU-second of the mirror's process, beside the ledger's own append
// rate (ledger-append.mjs at saturation, one signed head a second) measured in the same run on the
// same disk. The log: 32-byte entries, leaf i the SHA-256 of "mirror-bench-<i>", an Ed25519 key from
// a fixed seed. Bodies of 32 packages (8,192 entries), gzipped, are made before the clock starts,
// and sent one request at a time by one client, as tlog-mirror's clients do.
// Usage: node tools/bench/mirror.mjs [--entries N] [--seconds S]
import { onNode24 } from '../lib/node24.mjs';
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { MemoryTree, treeRoot } from '@svc/core/merkle';
import { formatAddCheckpoint, formatAddEntries, formatCheckpoint, logKeygen, noteSigner, signNote } from '@svc/core/tlog';
import { freePort, machine } from './util.mjs';

// The server and its SQLite need Node 24: run again on it when this Node is older.
onNode24();

const CLI = fileURLToPath(new URL('../../packages/server/dist/cli.js', import.meta.url));
const APPENDER = fileURLToPath(new URL('./ledger-append.mjs', import.meta.url));
const TICKS = 100; // clock ticks a second of /proc/<pid>/stat (Linux's USER_HZ)

/** CPU seconds a process has used so far, all its threads (utime + stime). */
function cpuOf(pid) {
  const f = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = f.slice(f.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / TICKS;
}

export async function mirrorBench({ entries = 1_000_000, seconds = 15 } = {}) {
  const work = mkdtempSync(join(tmpdir(), 'svc-bench-mirror-'));
  try {
    const t0 = performance.now();
    const origin = 'bench.example/mirrored';
    const signer = noteSigner(origin, logKeygen('ed25519', new Uint8Array(32).fill(55)));
    const leaves = Array.from({ length: entries }, (_, i) => new Uint8Array(createHash('sha256').update(`mirror-bench-${i}`).digest()));
    const tree = new MemoryTree();
    for (const l of leaves) tree.appendData(l);
    const note = signNote(formatCheckpoint({ origin, size: entries, root: treeRoot(tree, entries), extensions: [] }), [signer]);
    const bodies = [];
    for (let s = 0; s < entries; s += 32 * 256)
      bodies.push(gzipSync(formatAddEntries({ origin, start: s, end: entries, ticket: new Uint8Array(0) }, (i) => leaves[i], tree, 32)));
    console.log(
      `  the log: ${entries} entries, ${bodies.length} request bodies (${(bodies.reduce((n, b) => n + b.length, 0) / 2 ** 20).toFixed(1)} MiB gzipped), made in ${((performance.now() - t0) / 1000).toFixed(1)} s`,
    );

    // The mirror, a process of its own, on SQLite in the temp folder.
    const policy = join(work, 'policy');
    writeFileSync(policy, `log ${signer.vkey}\nquorum none\n`);
    const port = await freePort();
    const child = spawn(
      process.execPath,
      [
        ...(process.env.BENCH_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_PROF}`] : []),
        CLI,
        'mirror',
        'serve',
        '--policy',
        policy,
        '--data-dir',
        join(work, 'mirror'),
      ],
      {
        env: { ...process.env, PORT: String(port), HOST: '127.0.0.1', SVC_LOG_LEVEL: 'warn', SVC_BODY_SECONDS: '120' },
        stdio: ['ignore', 'pipe', 'inherit'],
      },
    );
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (d) => (out += d));
    const url = `http://127.0.0.1:${port}`;
    for (let i = 0; i < 400; i++) {
      try {
        if ((await fetch(`${url}/healthz`)).ok) break;
      } catch {}
      await new Promise((r) => setTimeout(r, 50));
    }
    const post = (path, body, headers = {}) => fetch(`${url}/${path}`, { method: 'POST', body, headers });
    const ck = await post('add-checkpoint', formatAddCheckpoint({ oldSize: 0, proof: [], checkpoint: note }));
    if (ck.status !== 200) throw new Error(`add-checkpoint: ${ck.status} ${await ck.text()} ${out}`);
    const cpu0 = cpuOf(child.pid);
    const w0 = performance.now();
    let last = 0;
    for (const b of bodies) {
      const r = await post('add-entries', b, { 'content-type': 'application/octet-stream', 'content-encoding': 'gzip' });
      last = r.status;
      await r.text();
      if (r.status !== 202 && r.status !== 200) throw new Error(`add-entries: ${r.status}`);
    }
    const wall = (performance.now() - w0) / 1000;
    const cpu = cpuOf(child.pid) - cpu0;
    child.kill(process.env.BENCH_PROF ? 'SIGTERM' : 'SIGKILL');
    if (process.env.BENCH_PROF) await new Promise((r) => child.once('exit', r));
    if (last !== 200) throw new Error('the mirror did not cosign the checkpoint');
    const mirrorRate = entries / wall;
    const mirrorPerCore = entries / cpu;
    console.log(
      `  mirror add-entries: ${entries} entries in ${wall.toFixed(1)} s, ${Math.round(mirrorRate)} entries/s; ${cpu.toFixed(1)} CPU-s, ${Math.round(mirrorPerCore)} entries per CPU-second`,
    );

    // The ledger's own append, same run, same disk.
    const r = spawnSync(process.execPath, [APPENDER, join(work, 'ledger.sqlite'), 'mirror-bench', String(seconds), '1000', '0'], {
      encoding: 'utf8',
    });
    if (r.status !== 0) throw new Error(`ledger-append: ${r.stderr}`);
    const a = JSON.parse(r.stdout.trim().split('\n').at(-1));
    const appendRate = a.leaves / a.seconds;
    const appendPerCore = a.leaves / a.cpuSeconds;
    console.log(
      `  ledger append (baseline): ${a.leaves} leaves in ${a.seconds.toFixed(1)} s, ${Math.round(appendRate)} leaves/s; ${a.cpuSeconds.toFixed(1)} CPU-s, ${Math.round(appendPerCore)} leaves per CPU-second`,
    );
    console.log(
      `  ratio, mirror / ledger append: ${(mirrorRate / appendRate).toFixed(2)} per second, ${(mirrorPerCore / appendPerCore).toFixed(2)} per CPU-second`,
    );
    return { mirrorRate, mirrorPerCore, appendRate, appendPerCore };
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const arg = (name, d) => {
    const i = process.argv.indexOf(name);
    return i < 0 ? d : Number(process.argv[i + 1]);
  };
  console.log(`machine: ${machine()}; Node ${process.version}`);
  await mirrorBench({ entries: arg('--entries', 1_000_000), seconds: arg('--seconds', 15) });
}
