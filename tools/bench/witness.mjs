// Witnessing: a witness process answering add-checkpoint for 20 logs submitting at once (requests
// per second and p99, against the signing it cannot avoid, timed in the same run), and how long a
// sealed batch takes to be published with a quorum by a log with three local witnesses.
import { onNode24 } from '../lib/node24.mjs';
import { spawn } from 'node:child_process';
import { Agent, request } from 'node:http';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ml_dsa44 } from '@noble/post-quantum/ml-dsa.js';
import { ed25519 } from '@noble/curves/ed25519.js';
import { namesFor } from '@svc/core';
import { sha256, utf8 } from '@svc/core/primitives';
import { MemoryTree, consistencyProof, treeRoot } from '@svc/core/merkle';
import { formatAddCheckpoint, formatCheckpoint, logKeygen, noteSigner, signNote, signedMessage } from '@svc/core/tlog';
import {
  Keyring,
  checkpointer,
  loadConfig,
  logOrigin,
  logRoles,
  nativeMlDsa44,
  openLedger,
  startServer,
} from '../../packages/server/dist/internal.js';
import { freePort, line, percentiles } from './util.mjs';

// The server and its SQLite need Node 24: run again on it when this Node is older.
onNode24();

const CLI = fileURLToPath(new URL('../../packages/server/dist/cli.js', import.meta.url));

async function witnessProcess(dir, policy, port) {
  const c = spawn(process.execPath, [CLI, 'witness', 'serve', '--policy', policy, '--data-dir', dir], {
    env: { ...process.env, PORT: String(port), HOST: '127.0.0.1', SVC_LOG: '1' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  c.stdout.setEncoding('utf8').on('data', (d) => (out += d));
  while (!out.includes('witness_listening')) await new Promise((r) => setTimeout(r, 20));
  const url = `http://127.0.0.1:${port}`;
  const vkeys = (await (await fetch(`${url}/vkeys`)).text()).trimEnd().split('\n');
  return { url, vkeys, stop: () => c.kill('SIGKILL') };
}

export async function witnessBench({ seconds = 10 } = {}) {
  const work = mkdtempSync(join(tmpdir(), 'svc-witness-bench-'));
  try {
    // 1. Throughput: 20 logs, each submitting its next checkpoint as soon as the last is answered.
    const LOGS = 20;
    const tree = new MemoryTree();
    for (let i = 0; i < 4096; i++) tree.appendData(sha256(utf8(`w${i}`)));
    const logs = Array.from({ length: LOGS }, (_, i) => noteSigner(`bench.example/log${i}`, logKeygen('ed25519', sha256(utf8(`wb${i}`)))));
    const policy = join(work, 'policy.txt');
    writeFileSync(policy, `${logs.map((l) => `log ${l.vkey}`).join('\n')}\nquorum none\n`);
    const w = await witnessProcess(join(work, 'w'), policy, await freePort());
    // Open loop at RATE requests/s across the logs, bodies made beforehand (the client's signing
    // is not the witness's cost); each log still waits for its last answer before the next.
    const RATE = 200;
    const perLog = Math.ceil((RATE / LOGS) * seconds) + 1 + 3;
    const bodies = logs.map((l) => {
      const out = [];
      for (let size = 1; size <= perLog; size++) {
        const cp = signNote(formatCheckpoint({ origin: l.name, size, root: treeRoot(tree, size), extensions: [] }), [l], 1);
        out.push(
          Buffer.from(
            formatAddCheckpoint({ oldSize: size - 1, proof: size > 1 ? consistencyProof(tree, size - 1, size) : [], checkpoint: cp }),
          ),
        );
      }
      return out;
    });
    // The client is node:http on kept-alive connections, one a log: fetch's garbage made this
    // process's own scavenges (19-35 ms here) the run's p99, a pause of the client, not the witness.
    const agent = new Agent({ keepAlive: true, maxSockets: LOGS });
    const post = (body) =>
      new Promise((resolve, reject) => {
        const req = request(`${w.url}/add-checkpoint`, { method: 'POST', agent, headers: { 'content-length': body.length } }, (res) => {
          res.resume();
          res.on('end', () => resolve(res.statusCode));
        });
        req.on('error', reject);
        req.end(body);
      });
    // Each log's first WARM checkpoints go untimed, as to a witness that has run a while (its code
    // compiled, its keys loaded, a connection open per log).
    const WARM = 3;
    for (let k = 0; k < WARM; k++) await Promise.all(logs.map((_l, i) => post(bodies[i][k])));
    const latencies = [];
    let done = 0;
    const start = performance.now() + 200;
    await Promise.all(
      logs.map(async (_l, i) => {
        for (let k = WARM; k < perLog - 1; k++) {
          const due = start + (((k - WARM) * LOGS + i) * 1000) / RATE;
          const wait = due - performance.now();
          if (wait > 0) await new Promise((r) => setTimeout(r, wait));
          const t = Math.max(due, performance.now());
          const status = await post(bodies[i][k]);
          if (status !== 200) throw new Error(`witness answered ${status}`);
          // From when it was due: a request held up behind its log's last answer counts that wait.
          latencies.push(performance.now() - t);
          done++;
        }
      }),
    );
    agent.destroy();
    const elapsed = (performance.now() - start) / 1000;
    w.stop();
    const rps = done / elapsed;
    const p = percentiles(latencies);
    // Baseline: the two signatures each answer needs (ML-DSA-44, natively where the runtime has it, and Ed25519).
    const k44 = logKeygen('subtree/v1', sha256(utf8('b44')));
    const kEd = logKeygen('cosignature/v1', sha256(utf8('bed')));
    const text = formatCheckpoint({ origin: 'x.example/l', size: 10, root: treeRoot(tree, 10), extensions: [] });
    const msg44 = signedMessage('subtree/v1', 'w', text, 1);
    const msgEd = signedMessage('cosignature/v1', 'w', text, 1);
    const native = nativeMlDsa44(k44.secretKey, k44.publicKey);
    let n = 0;
    const t0 = performance.now();
    while (performance.now() - t0 < 2000) {
      if (native) native(msg44);
      else ml_dsa44.sign(msg44, k44.secretKey, { extraEntropy: false });
      ed25519.sign(msgEd, kEd.secretKey);
      n++;
    }
    const signRate = n / ((performance.now() - t0) / 1000);
    line(
      `witness add-checkpoint, ${RATE}/s offered by ${LOGS} logs, ${seconds} s`,
      `${rps.toFixed(0)} requests/s; p50 ${p.p50.toFixed(1)} ms, p99 ${p.p99.toFixed(1)} ms`,
      '200/s, p99 < 20 ms',
    );
    line(`  baseline: the two cosignatures alone, one thread (ML-DSA-44 ${native ? 'node:crypto' : 'noble'})`, `${signRate.toFixed(0)} /s`);

    // 2. A log with three local witnesses (2 of 3): batch sealed -> published witnessed.
    const logDir = join(work, 'log');
    mkdirSync(logDir);
    const cfg = loadConfig({ SVC_DATA_DIR: logDir, SVC_LOG: '0', PORT: '0' });
    Keyring.generate(join(logDir, 'keys'));
    const vk = checkpointer(Keyring.load(join(logDir, 'keys')).ring, logOrigin(cfg, namesFor()), logRoles(cfg))
      .vkeys()
      .split('\n')[0];
    const wp = join(work, 'wpolicy.txt');
    writeFileSync(wp, `log ${vk}\nquorum none\n`);
    const ws = [];
    for (let i = 0; i < 3; i++) ws.push(await witnessProcess(join(work, `w${i}`), wp, await freePort()));
    const lp = join(work, 'lpolicy.txt');
    writeFileSync(lp, `log ${vk}\n${ws.map((x, i) => `witness W${i} ${x.vkeys[0]} ${x.url}`).join('\n')}\ngroup G 2 W0 W1 W2\nquorum G\n`);
    const server = await startServer({ ...cfg, witnessPolicy: lp, ledgerBatchMs: 0 });
    const ledger = await openLedger(cfg, namesFor(), Keyring.load(join(logDir, 'keys')).ring, () => undefined, {
      background: false,
      batchMs: 0,
    });
    const lat = [];
    for (let k = 0; k < 20; k++) {
      const p1 = ledger.append(Array.from({ length: 100 }, (_, j) => sha256(utf8(`pub ${k} ${j}`))));
      await ledger.flush();
      const { head } = await p1;
      const t = performance.now();
      for (;;) {
        const st = await (await fetch(`${server.url}/api/transparency/tlog/witnessing`)).json();
        if (st.publishedSize >= head.tree_size) break;
        await new Promise((r) => setTimeout(r, 10));
      }
      lat.push(performance.now() - t);
    }
    await ledger.close();
    await server.close();
    for (const x of ws) x.stop();
    const pl = percentiles(lat);
    line('sealed batch -> published with 2 of 3 local witnesses', `p50 ${pl.p50.toFixed(0)} ms, p99 ${pl.p99.toFixed(0)} ms`, '< 2 s');
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await witnessBench();
