// A `svc witness serve` child process for the witness tests: started on a policy file, waited for
// until it listens, its vkeys read; stopped with SIGKILL (as a crash would).
import { spawn, type ChildProcess } from 'node:child_process';
import { expect } from 'vitest';
import { parseVkey, type NoteVerifier } from '@svc/core/tlog';
import { CLI } from './svc-cli.js';

export interface WitnessProc {
  name: string;
  dir: string;
  port: number;
  url: string;
  vkeys: NoteVerifier[];
  child: ChildProcess | null;
  logs: string;
}

export async function startWitness(w: WitnessProc, policy: string, env: Record<string, string> = {}): Promise<void> {
  const child = spawn(process.execPath, [CLI, 'witness', 'serve', '--policy', policy, '--data-dir', w.dir], {
    env: { ...process.env, PORT: String(w.port), HOST: '127.0.0.1', SVC_WITNESS_NAME: w.name, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  w.child = child;
  w.logs = '';
  child.stdout!.setEncoding('utf8').on('data', (d) => (w.logs += d));
  child.stderr!.setEncoding('utf8').on('data', (d) => (w.logs += d));
  for (let i = 0; i < 2400 && !w.logs.includes('witness_listening'); i++) await new Promise((r) => setTimeout(r, 25));
  expect(w.logs, w.logs).toContain('witness_listening');
  w.vkeys = (await (await fetch(`${w.url}/vkeys`)).text()).trimEnd().split('\n').map(parseVkey);
  // Its liveness, as an orchestrator asks it.
  const health = await fetch(`${w.url}/healthz`);
  expect(health.status).toBe(200);
  expect(await health.json()).toMatchObject({ ok: true, witness: w.name, logs: 1 });
}

export function stopWitness(w: WitnessProc): Promise<void> {
  const c = w.child;
  w.child = null;
  if (!c || c.exitCode !== null) return Promise.resolve();
  return new Promise((r) => {
    c.once('exit', () => r());
    c.kill('SIGKILL');
  });
}
