// Runs in every runtime of the matrix against the packed @svc/core: replays every test vector and
// times verification, printing one JSON line. `vectors` is injected by the caller (a module next
// to this one), so the same file works in Node, Bun, Deno, workerd and a browser.
import { defaultCrypto, nobleBackend, verifyBundle, SvcError } from '@svc/core';
import vectors from './vectors.mjs';

const canon = (v) =>
  Array.isArray(v)
    ? `[${v.map(canon).join(',')}]`
    : v && typeof v === 'object'
      ? `{${Object.keys(v)
          .sort()
          .map((k) => `${JSON.stringify(k)}:${canon(v[k])}`)
          .join(',')}}`
      : JSON.stringify(v);

export async function smoke(now = () => performance.now()) {
  const backend = await defaultCrypto();
  let passed = 0;
  const failed = [];
  for (const c of vectors) {
    let got;
    try {
      got = {
        status: 200,
        response: await verifyBundle(c.inputText ?? c.input, {
          trustedKeys: c.trustedKeys,
          trustedBridgeKeys: c.trustedBridgeKeys,
          service: c.service,
        }),
      };
    } catch (e) {
      got = e instanceof SvcError ? { status: e.status, code: e.code } : { thrown: String(e) };
    }
    if (canon(got) === canon(c.expected)) passed++;
    else failed.push(c.description);
  }
  // Timing: one plain proof bundle, default backend against noble, same run.
  const plain = vectors.find((c) => c.description === 'plain answer, pinned key: passes and is recognised') ?? vectors[0];
  const time = async (crypto, n) => {
    await verifyBundle(plain.input, { trustedKeys: plain.trustedKeys, crypto });
    const t = now();
    for (let i = 0; i < n; i++) await verifyBundle(plain.input, { trustedKeys: plain.trustedKeys, crypto });
    return (now() - t) / n;
  };
  const msDefault = await time(backend, 30);
  const msNoble = backend === nobleBackend ? msDefault : await time(nobleBackend, 10);
  return {
    backend: backend.name,
    passed,
    total: vectors.length,
    failed: failed.slice(0, 5),
    msPerVerify: { [backend.name]: +msDefault.toFixed(3), noble: +msNoble.toFixed(3) },
  };
}
