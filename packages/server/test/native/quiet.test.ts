// Run under Node 24: a verify with @svc/core writes nothing to the caller's stderr (issue 54 part
// 5). Node 24 prints an ExperimentalWarning the first time its ML-DSA is used, so the library's
// default backend is noble and the runtime's own is the caller's choice. Each case runs in a fresh
// process: the warning is printed once per process, so a shared one would hide it.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const here = fileURLToPath(new URL('.', import.meta.url));

function run(code: string): Promise<{ code: number | null; out: string; err: string }> {
  return new Promise((resolve) => {
    const c = spawn(process.execPath, ['--input-type=module', '-e', code], { cwd: here });
    let out = '';
    let err = '';
    c.stdout.on('data', (d) => (out += d));
    c.stderr.on('data', (d) => (err += d));
    c.on('close', (status) => resolve({ code: status, out, err }));
  });
}

const verify = (crypto: string) => `
import { verifyBundle, webCryptoBackend, nobleBackend } from '@svc/core';
import { issueProof } from '@svc/core/issue';
import { testKeys } from '@svc/core/testing';
const k = testKeys('quiet');
const bundle = issueProof({ answer: 'quiet', model: 'm', ts: 1 }, { receipt: k.answer });
const res = await verifyBundle(bundle, { crypto: ${crypto}, trustedKeys: k.trustedKeys });
console.log(JSON.stringify({ ok: res.verdict.overallOk, recognized: res.signerRecognized }));
`;

describe('a verify on Node 24 prints nothing the caller did not ask for', () => {
  it('the default backend: the verdict on stdout, nothing on stderr', async () => {
    const r = await run(verify('undefined'));
    expect(r.err).toBe('');
    expect(JSON.parse(r.out)).toEqual({ ok: true, recognized: true });
    expect(r.code).toBe(0);
  });

  it("the runtime's own ML-DSA, chosen: the same verdict, and Node's warning (which is why it is a choice)", async () => {
    const r = await run(verify('(await webCryptoBackend()) ?? nobleBackend'));
    expect(JSON.parse(r.out)).toEqual({ ok: true, recognized: true });
    expect(r.err).toMatch(/ExperimentalWarning/);
  });
});
