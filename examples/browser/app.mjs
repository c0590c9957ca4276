// Verify in a browser page: bundle this file (e.g. `esbuild --bundle examples/browser/app.mjs`)
// and load it in examples/browser/index.html. The page verifies the bundle pasted into it.
import { verifyBundle } from '@svc/core';

document.getElementById('go').addEventListener('click', async () => {
  const out = document.getElementById('out');
  try {
    const r = await verifyBundle(document.getElementById('doc').value);
    out.textContent = `integrity: ${r.verdict.overallOk ? 'PASS' : 'FAIL'}; origin: ${r.signerRecognized ? 'recognised' : 'not recognised (no keys pinned)'}`;
  } catch (e) {
    out.textContent = `refused: ${e.code}`;
  }
  out.dataset.done = '1';
});
