// `svc serve` as a cluster (SVC_PROCESSES=2) the way an operator runs it: several processes on one
// port, one rate limit per client across them, one council probe for all, metrics that count every
// process, a process that dies replaced, and one graceful stop for the group.
import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { counterSum, fresh, serveCluster } from '../support/cluster.js';

let plane: Server;
let planeUrl = '';
let probes = 0;
beforeAll(async () => {
  plane = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      probes++;
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ choices: [{ message: { content: 'ready' } }] }));
    });
  });
  await new Promise<void>((r) => plane.listen(0, '127.0.0.1', () => r()));
  planeUrl = `http://127.0.0.1:${(plane.address() as { port: number }).port}/v1`;
});
afterAll(() => new Promise<void>((r) => plane.close(() => r())));

describe('svc serve with SVC_PROCESSES=2', () => {
  it('two processes answer on one port; a client has one limit across them; metrics count both; a group SIGINT stops all with exit 0', async () => {
    const c = await serveCluster({ SVC_RATE_READ: '6', SVC_LEDGER: 'off' });
    try {
      const statuses: number[] = [];
      for (let i = 0; i < 10; i++) statuses.push((await fresh(`${c.base}/api/provenance/pubkey`)).status);
      // Per-process limiters would have allowed up to 12 of these.
      expect(statuses.filter((s) => s === 200)).toHaveLength(6);
      expect(statuses.filter((s) => s === 429)).toHaveLength(4);
      // Each line is written just after its answer is sent.
      const pubkeyLines = () => c.lines().filter((l) => l.event === 'request' && l.path === '/api/provenance/pubkey');
      await c.waitFor(() => pubkeyLines().length >= 10, 'ten request lines');
      const answered = pubkeyLines();
      expect(answered).toHaveLength(10);
      expect(new Set(answered.map((l) => l.req_id)).size).toBe(10);
      expect(new Set(answered.map((l) => l.pid)).size).toBe(2);
      for (let i = 0; i < 3; i++) {
        // Whichever process answers the scrape, it counts what every process served.
        const m = await fresh(`${c.base}/metrics`);
        expect(m.status).toBe(200);
        expect(counterSum(m.body, 'svc_http_requests_total', { route: '/api/provenance/pubkey' })).toBe(10);
        expect(counterSum(m.body, 'svc_rate_limited_total')).toBe(4);
        expect(counterSum(m.body, 'svc_process_restarts_total')).toBe(0);
      }
    } finally {
      process.kill(-c.child.pid!, 'SIGINT');
    }
    expect(await c.exited).toBe(0);
    const lines = c.lines();
    expect(lines[lines.length - 1]).toMatchObject({ event: 'stopped', processes: 2 });
    expect(lines.filter((l) => l.event === 'stopped')).toHaveLength(3); // each process, then the primary
    expect(lines.some((l) => l.event === 'process_exit')).toBe(false);
  }, 60_000);

  it('probes the council once for all processes, and replaces a process that dies', async () => {
    const council = JSON.stringify({
      endpoint: planeUrl,
      timeout_ms: 2000,
      seats: [{ id: 'a', label: 'A', model: 'm', key_env: 'KEY_A' }],
    });
    const c = await serveCluster({ COUNCIL: council, KEY_A: 'k', SVC_LEDGER: 'off' });
    try {
      probes = 0;
      for (let i = 0; i < 6; i++) expect((await fresh(`${c.base}/api/status/council`)).status).toBe(200);
      expect(probes).toBe(1);
      const pids = [
        ...new Set(
          c
            .lines()
            .filter((l) => l.event === 'request')
            .map((l) => l.pid as number),
        ),
      ];
      expect(pids).toHaveLength(2);
      process.kill(pids[0]!, 'SIGKILL');
      const exit = await c.waitFor((l) => l.event === 'process_exit', 'process_exit');
      expect(exit).toMatchObject({ signal: 'SIGKILL', level: 'error' });
      await c.waitFor((l) => l.event === 'listening' && !pids.includes(l.pid), 'a new process listening');
      for (let i = 0; i < 4; i++) expect((await fresh(`${c.base}/api/provenance/pubkey`)).status).toBe(200);
      const m = await fresh(`${c.base}/metrics`);
      expect(counterSum(m.body, 'svc_process_restarts_total')).toBe(1);
      expect(probes).toBe(1);
    } finally {
      c.child.kill('SIGTERM');
    }
    expect(await c.exited).toBe(0);
  }, 60_000);
});
