#!/usr/bin/env node
// Bundles the verifier page into one self-contained HTML file (dist/page.html): it works served by
// the server and opened as a local file alike.
import { build } from 'esbuild';
import { readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', 'packages', 'server');
const out = await build({
  entryPoints: [join(root, 'page', 'app.mjs')],
  bundle: true,
  format: 'iife',
  platform: 'browser',
  target: 'es2022',
  minify: true,
  write: false,
  legalComments: 'none',
});
const js = out.outputFiles[0].text.replace(/<\/script/gi, '<\\/script');
const html = readFileSync(join(root, 'page', 'page.html'), 'utf8').replace('/*__APP__*/', () => js);
mkdirSync(join(root, 'dist'), { recursive: true });
writeFileSync(join(root, 'dist', 'page.html'), html);
console.log(`page.html: ${(html.length / 1024).toFixed(0)} KiB`);
