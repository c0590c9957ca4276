// One development keyring for the server test project, made once per run: a data folder a test
// makes gets a copy (test/support/keys.ts) instead of making its own. Making one is about a second
// of CPU on the two-core test machine (Falcon-1024's key generation is 0.8 s of it), and the suite
// made well over a hundred. Tests whose subject is key generation or rotation make their own.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { Keyring } from '../../src/internal.js';

export default function setup(project: TestProject) {
  const dir = mkdtempSync(join(tmpdir(), 'svc-test-keyring-'));
  Keyring.generate(join(dir, 'keys'));
  project.provide('keyTemplate', join(dir, 'keys'));
  return () => rmSync(dir, { recursive: true, force: true });
}
