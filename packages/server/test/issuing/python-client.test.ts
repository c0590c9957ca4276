// The Python openai package against the front (issue 52): python/clients.py runs each documented
// path (chat plain, the usual streamed loop, the stream helper; the Responses API plain, streamed
// and its helper; two errors) against examples/echo-model.mjs as the seat, and every proof it
// reached must verify over exactly what it showed. The package is installed into a venv of its own
// (cached under node_modules/.cache); where python3 -m venv or pip cannot install it, the test is
// skipped and says why.
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issuingServer, verdictOf, type IssuingServer } from './support.js';

const root = fileURLToPath(new URL('../../../../', import.meta.url));
const venv = join(root, 'node_modules/.cache/svc-python-openai');
const python = join(venv, 'bin/python');

/** The venv's python with openai importable, or why there is none. */
function pythonWithOpenAi(): { ok: true } | { ok: false; why: string } {
  const importable = () => existsSync(python) && spawnSync(python, ['-c', 'import openai'], { encoding: 'utf8' }).status === 0;
  if (importable()) return { ok: true };
  mkdirSync(join(root, 'node_modules/.cache'), { recursive: true });
  const mk = spawnSync('python3', ['-m', 'venv', '--clear', venv], { encoding: 'utf8', timeout: 60_000 });
  if (mk.status !== 0) return { ok: false, why: `python3 -m venv failed: ${(mk.stderr || String(mk.error)).trim().slice(-300)}` };
  // No retries: an index that cannot be reached fails at once rather than after minutes.
  const pip = spawnSync(
    join(venv, 'bin/pip'),
    ['install', '-q', '--disable-pip-version-check', '--retries', '0', '--timeout', '15', 'openai'],
    {
      encoding: 'utf8',
      timeout: 180_000,
    },
  );
  if (pip.status !== 0 || !importable())
    return { ok: false, why: `pip install openai failed: ${(pip.stderr || String(pip.error)).trim().slice(-300)}` };
  return { ok: true };
}

let s: IssuingServer;
let model: ChildProcess;
let ready: { ok: true } | { ok: false; why: string };

beforeAll(async () => {
  ready = pythonWithOpenAi();
  if (!ready.ok) return;
  model = spawn(process.execPath, [join(root, 'examples/echo-model.mjs'), '0']);
  const endpoint = await new Promise<string>((ok) => model.stdout!.once('data', (d) => ok(JSON.parse(String(d)).url)));
  s = await issuingServer({ env: { SVC_RATE_ISSUE: '0' }, council: { seats: [{ id: 'echo', label: 'Echo', model: 'echo-1', endpoint }] } });
}, 240_000);
afterAll(async () => {
  await s?.stop();
  model?.kill();
});

describe('the Python openai package', () => {
  it('reaches a proof over exactly what it showed on every documented path; errors map to its classes', async (ctx) => {
    if (!ready.ok) {
      console.warn(`python-client.test: skipped: ${ready.why}`);
      ctx.skip();
    }
    // Not spawnSync: the server answering the script runs on this very event loop.
    const child = spawn(python, [fileURLToPath(new URL('./python/clients.py', import.meta.url)), `${s.issueUrl}/v1`, s.tokens.app!]);
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c) => (stdout += c));
    child.stderr.on('data', (c) => (stderr += c));
    const status = await new Promise<number | null>((r) => child.on('close', r));
    const run = { status, stdout, stderr };
    expect(run.status, run.stderr).toBe(0);
    const out = JSON.parse(run.stdout);
    const answer = 'You asked: Capital of France?';
    for (const path of ['plain', 'streamed', 'helper', 'responses', 'responses_streamed', 'responses_helper']) {
      const { shown, model, proof } = out[path];
      expect(shown, path).toBe(answer);
      expect(proof?.answer, path).toBe(shown);
      // Where the path returns a whole completion or response, the model it names is the one signed.
      if (['plain', 'helper', 'responses', 'responses_helper'].includes(path)) expect(model, path).toBe(proof?.receipt.model);
      const v = await verdictOf(s.dir, proof);
      expect(v.verdict.overallOk, path).toBe(true);
      expect(v.signerRecognized, path).toBe(true);
    }
    expect(out.unauthorized).toEqual({ status: 401, code: 'unauthorized' });
    expect(out.stateful).toMatchObject({ status: 422, code: 'invalid_request' });
  }, 180_000);
});
