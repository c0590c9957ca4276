// The cluster campaign (#29): `svc serve` in its default layout (a primary and two server
// processes) while, phase after phase, one address floods one public route over many connections
// (or pipelines without reading), another posts verifies against a small limit, a bystander
// measures its latency from a third, and the server processes are killed (SIGKILL) or frozen
// (SIGSTOP for up to 2 s) at random moments. Checked throughout: the verify limit is never
// exceeded, no answer is a 5xx but 503, the primary never exits, the port is served again after
// every kill, a bystander's p99 stays under 250 ms in every phase without kills or freezes, and
// the memory of the whole process tree stays bounded.
import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { request } from 'node:http';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { processTree as tree } from '../../lib/proc.mjs';

const CLI = fileURLToPath(new URL('../../../packages/server/dist/cli.js', import.meta.url));
const ROUTES = [
  ['GET', '/metrics'],
  ['GET', '/healthz'],
  ['GET', '/api/provenance/pubkey'],
  ['GET', '/api/transparency/ledger'],
  ['GET', '/openapi.json'],
  ['GET', '/'],
  ['POST', '/api/transparency/ledger/inclusion'],
  ['POST', '/api/v1/verify'],
  ['PIPELINE', '/healthz'],
];
const VERIFY_LIMIT = 20;
/** A bystander's p99 under a flood of any one route, with no process killed or frozen meanwhile (#29). */
const BYSTANDER_P99_MS = 250;

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function call(port, method, path, { localAddress, body, timeoutMs = 10_000 } = {}) {
  return new Promise((resolve) => {
    const req = request(
      { host: '127.0.0.1', port, method, path, localAddress, agent: false, timeout: timeoutMs, headers: { connection: 'close' } },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
        res.on('error', () => resolve(0));
      },
    );
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve(0));
    req.end(body);
  });
}

const pct = (xs, p) => (xs.length ? [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((xs.length * p) / 100))] : Number.NaN);

/**
 * Run the campaign until `until` (ms since the epoch) or for `phases` phases, whichever ends first;
 * resolves with what it measured and its findings. `phaseMs`: how long each flood lasts;
 * `connections`: the flood's concurrency. A count, not a deadline, makes a bounded run cover the same
 * families on a slow machine as on a fast one (the start-up and the recoveries are not phase time).
 */
export async function clusterCampaign({
  until = Number.POSITIVE_INFINITY,
  phases: phaseCount = Number.POSITIVE_INFINITY,
  seed,
  phaseMs = 15_000,
  connections = 100,
  port = 24000 + (seed % 1000),
  p99GoalMs = BYSTANDER_P99_MS,
}) {
  let s = seed >>> 0 || 1;
  const rand = () => (s = (Math.imul(s, 1103515245) + 12345) >>> 0) / 2 ** 32;
  const dir = mkdtempSync(join(tmpdir(), 'svc-cluster-fuzz-'));
  const server = spawn(process.execPath, [CLI, 'serve'], {
    env: {
      ...process.env,
      SVC_DATA_DIR: dir,
      PORT: String(port),
      SVC_PROCESSES: '2',
      SVC_WORKERS: '1',
      SVC_LOG: '0',
      SVC_RATE_VERIFY: String(VERIFY_LIMIT),
      SVC_RATE_METRICS: '0',
      SVC_RATE_READ: '0',
      SVC_SEND_SECONDS: '2',
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  let exit = null;
  server.on('exit', (code, signal) => (exit = code ?? signal));
  for (let i = 0; i < 200 && (await call(port, 'GET', '/healthz', { timeoutMs: 1000 })) !== 200; i++) await sleep(100);
  const findings = [];
  const phases = [];
  const statuses = new Map();
  const count = (st) => statuses.set(st, (statuses.get(st) ?? 0) + 1);
  let allowed = 0;
  const verifyStart = Date.now();
  let kills = 0;
  let freezes = 0;
  let maxMb = 0;
  const memory = setInterval(() => {
    const mb = tree(server.pid).mb;
    if (Number.isFinite(mb)) maxMb = Math.max(maxMb, mb);
  }, 1000);

  for (let phase = 0; phase < phaseCount && Date.now() < until && exit === null; phase++) {
    const [method, path] = ROUTES[phase % ROUTES.length];
    const end = Math.min(until, Date.now() + phaseMs);
    const live = () => Date.now() < end && exit === null;
    // A connection the primary is handing to a process when that process is killed is never
    // closed by node:cluster (the round-robin handoff waits for a reply that cannot come), so its
    // client waits for its own timeout. The attackers give up after two phases' time, so that a
    // phase ends near its length; the bystander keeps 10 s, and every failure of it is judged.
    const attackMs = Math.min(10_000, 2 * phaseMs);
    const flood = async () => {
      if (method === 'PIPELINE') {
        // Slow readers: each connection pipelines 1,000 requests and never reads.
        const burst = `GET ${path} HTTP/1.1\r\nhost: x\r\n\r\n`.repeat(1000);
        while (live()) {
          const socks = Array.from({ length: connections }, () => {
            const c = connect({ port, host: '127.0.0.1', localAddress: '127.0.0.2' });
            c.on('error', () => {});
            c.pause();
            c.write(burst);
            return c;
          });
          await sleep(3_000);
          for (const c of socks) c.destroy();
        }
        return;
      }
      const body = method === 'POST' ? (path.endsWith('inclusion') ? '{"answer":"x"}' : '{}') : undefined;
      await Promise.all(
        Array.from({ length: connections }, async () => {
          while (live()) count(await call(port, method, path, { localAddress: '127.0.0.2', body, timeoutMs: attackMs }));
        }),
      );
    };
    const verifier = async () => {
      while (live()) {
        const st = await call(port, 'POST', '/api/v1/verify', { localAddress: '127.0.0.3', body: '{}', timeoutMs: attackMs });
        count(st);
        if (st !== 429 && st !== 503 && st !== 0) allowed++;
        await sleep(50);
      }
    };
    const latencies = [];
    let bystanderFailed = 0;
    const bystander = async () => {
      while (live()) {
        const t = performance.now();
        const st = await call(port, 'GET', '/api/provenance/pubkey', { localAddress: '127.0.0.4' });
        if (st === 200) latencies.push(performance.now() - t);
        else bystanderFailed++;
        await sleep(100);
      }
    };
    const chaos = async () => {
      // The first blow lands inside the phase's first half, so a short phase is disturbed too.
      while (live()) {
        await sleep(phaseMs * (0.15 + rand() * 0.35));
        if (!live()) break;
        const kids = tree(server.pid).children;
        const victim = kids[Math.floor(rand() * kids.length)];
        if (!victim) continue;
        if (rand() < 0.5) {
          process.kill(victim, 'SIGKILL');
          kills++;
        } else {
          process.kill(victim, 'SIGSTOP');
          freezes++;
          await sleep(250 + rand() * 1750);
          try {
            process.kill(victim, 'SIGCONT');
          } catch {
            // it died meanwhile
          }
        }
      }
    };
    // The chaos runs in every other phase: the bystander's latency is measured undisturbed in the others.
    const chaotic = phase % 2 === 1;
    await Promise.all([flood(), verifier(), bystander(), ...(chaotic ? [chaos()] : [])]);
    phases.push({
      route: `${method} ${path}`,
      chaos: chaotic,
      bystander: { n: latencies.length, failed: bystanderFailed, p50: pct(latencies, 50), p99: pct(latencies, 99) },
    });
    // After every phase the port answers again (the killed processes are back).
    let back = false;
    for (let i = 0; i < 150 && !back && exit === null; i++) {
      back = (await call(port, 'GET', '/healthz', { localAddress: '127.0.0.5', timeoutMs: 2000 })) === 200;
      if (!back) await sleep(100);
    }
    if (!back) findings.push({ kind: 'port not served after the phase', phase: phases.at(-1).route });
    const b = phases.at(-1).bystander;
    if (!chaotic && (b.failed > 0 || b.p99 >= p99GoalMs))
      findings.push({ kind: `bystander p99 ${b.p99.toFixed(0)} ms (goal < ${p99GoalMs}), ${b.failed} failed`, phase: phases.at(-1).route });
  }
  clearInterval(memory);
  const minutes = (Date.now() - verifyStart) / 60_000;
  // A sliding minute allows at most the limit in any 60 s: over the run, the limit per started minute.
  const most = VERIFY_LIMIT * (Math.floor(minutes) + 1);
  if (allowed > most) findings.push({ kind: 'verify limit exceeded', allowed, most });
  for (const [st, n] of statuses) if (st >= 500 && st !== 503) findings.push({ kind: `answered ${st}`, n });
  if (exit !== null) findings.push({ kind: 'the primary exited', exit });
  server.kill('SIGTERM');
  const code = await new Promise((r) => (exit !== null ? r(exit) : server.once('exit', (c) => r(c))));
  if (code !== 0) findings.push({ kind: 'the primary did not stop with 0 on SIGTERM', code });
  return { phases, statuses: Object.fromEntries(statuses), allowed, most, kills, freezes, maxMb, findings };
}
