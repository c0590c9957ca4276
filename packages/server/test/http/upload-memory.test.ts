// SVC_BODY_BUDGET_MB bounds the whole server (#53 row 8): a cluster's processes share it, and a
// process's listeners (the public port and the issuing one) draw on one share. Before, each
// listener of each process held a budget of its own, so 300 stalled 2 MiB uploads grew the default
// two-process layout by 223 MiB against a 64 MiB budget; now by the budget plus what V8 leaves of
// the refused bodies it read and dropped (docs/reliability.md, "Row 8").
import { connect, type Socket } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { serveCluster } from '../support/cluster.js';
import { descendants, rssMiB } from '../support/procs.js';
import { issuingServer, type IssuingServer } from '../issuing/support.js';

const MIB = 1024 * 1024;
const UPLOAD = 2 * MIB;

/** Send the head of an upload declaring `declared` bytes and `sent` of them; `answer` is what came back by close. */
function upload(port: number, declared: number, sent: number, o: { host?: string; path?: string; token?: string } = {}) {
  const sock: Socket = connect({ port, host: '127.0.0.1', ...(o.host ? { localAddress: o.host } : {}) });
  let text = '';
  sock.on('data', (c) => (text += c.toString('latin1')));
  sock.on('error', () => undefined);
  const answer = new Promise<string>((r) => sock.on('close', () => r(text)));
  const written = new Promise<void>((r) =>
    sock.on('connect', () => {
      sock.write(
        `POST ${o.path ?? '/api/v1/verify'} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n` +
          (o.token ? `Authorization: Bearer ${o.token}\r\n` : '') +
          `Content-Length: ${declared}\r\n\r\n`,
      );
      sock.write(new Uint8Array(sent).fill(0x20), () => r());
    }),
  );
  return { sock, answer, written };
}

const status = (text: string) => /^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 'none';

describe('one body budget for a process, whichever listener', () => {
  let s: IssuingServer;
  afterAll(() => s?.stop());

  it('bytes held on the public port leave the issuing listener that much less, and the other way round', async () => {
    s = await issuingServer({ env: { SVC_BODY_BUDGET_MB: '1', SVC_BODY_SECONDS: '30', SVC_RATE_VERIFY: '0', SVC_RATE_ISSUE: '0' } });
    const pub = Number(new URL(s.url).port);
    const iss = Number(new URL(s.issueUrl).port);
    // 900,000 of the 1 MiB held on the public port ...
    const a = upload(pub, 950_000, 900_000);
    await a.written;
    await new Promise((r) => setTimeout(r, 200));
    // ... so an authenticated upload of 200,000 bytes to the issuing listener cannot fit.
    const b = upload(iss, 200_000, 10, { path: '/api/v1/issue', token: s.tokens.app });
    expect(status(await b.answer)).toBe('503');
    a.sock.destroy();
    await a.answer;
    // Given back: the same upload to the issuing listener now fits and holds it in turn.
    await new Promise((r) => setTimeout(r, 100));
    const c = upload(iss, 950_000, 900_000, { path: '/api/v1/issue', token: s.tokens.app });
    await c.written;
    await new Promise((r) => setTimeout(r, 200));
    const d = upload(pub, 200_000, 10);
    expect(status(await d.answer)).toBe('503');
    c.sock.destroy();
  }, 60_000);
});

describe.runIf(process.platform === 'linux')('300 stalled uploads against the default two-process layout', () => {
  it('hold at most the budget between them, and grow the server processes by at most the budget and 96 MiB each', async () => {
    const BUDGET_MIB = 64;
    // A body deadline far beyond the test, so every upload is judged by the budget alone, however
    // slowly a loaded machine reaches it; the test ends them itself.
    const c = await serveCluster({
      SVC_PROCESSES: '2',
      SVC_WORKERS: '1',
      SVC_BODY_BUDGET_MB: String(BUDGET_MIB),
      SVC_BODY_SECONDS: '600',
      SVC_RATE_VERIFY: '0',
      // 100 uploads an address: the cap on connections per address (64 a process) is not what is
      // tried here, and a loaded machine's uneven share between the processes met it (39 closed
      // unanswered in one CI run).
      SVC_CONNECTIONS_PER_IP: '256',
    });
    try {
      const servers = () => descendants(c.child.pid!).filter((p) => p.cmd.includes(' serve') && !p.cmd.includes('sqlite'));
      const sum = () => servers().reduce((a, p) => a + (rssMiB(p.pid) ?? 0), 0);
      expect(servers()).toHaveLength(2);
      const before = sum();
      // Three client addresses, 100 uploads each, each stalled one byte short of 2 MiB.
      const hosts = ['127.0.0.1', '127.0.0.2', '127.0.0.3'];
      const uploads = Array.from({ length: 300 }, (_, i) => upload(c.port, UPLOAD, UPLOAD - 1, { host: hosts[i % 3]! }));
      const answered: string[] = [];
      for (const u of uploads) void u.answer.then((a) => answered.push(status(a)));
      // Each process holds its 32 MiB share: 16 uploads of 2 MiB, 32 between them; every other one
      // is refused (503), at once or when its next chunk does not fit. Wait for those refusals (an
      // event each), sampling memory meanwhile; the old layout (a budget per listener per process)
      // held 64 and refused 236, so it never gets here.
      let peak = 0;
      for (let i = 0; i < 2400 && answered.length < 300 - BUDGET_MIB / 2; i++) {
        peak = Math.max(peak, sum() - before);
        await new Promise((r) => setTimeout(r, 50));
      }
      peak = Math.max(peak, sum() - before);
      const counts: Record<string, number> = {};
      for (const a of answered) counts[a] = (counts[a] ?? 0) + 1;
      console.log(
        `300 stalled uploads: ${JSON.stringify(counts)} answered, ${300 - answered.length} held; server processes grew ${peak.toFixed(0)} MiB at most`,
      );
      expect(Object.keys(counts)).toEqual(['503']);
      expect(answered.length).toBeGreaterThanOrEqual(300 - BUDGET_MIB / 2);
      // What V8 leaves of refused bodies read and dropped: 144-157 MiB here, 213 on a loaded CI run.
      expect(peak).toBeLessThanOrEqual(BUDGET_MIB + 96 * 2);
      for (const u of uploads) u.sock.destroy();
      // And the server serves after.
      const ok = await fetch(`${c.base}/healthz`);
      expect(ok.status).toBe(200);
    } finally {
      process.kill(-c.child.pid!, 'SIGKILL');
    }
  }, 180_000);
});
