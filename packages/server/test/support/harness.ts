// Boots the built reference server in-process on a loopback port with a fresh data folder.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer as createNetServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Compile } from 'typebox/compile';
import { expect } from 'vitest';
import * as schemas from '@svc/core/schemas';
import { loadConfig, startServer, type Config, type Running } from '../../src/internal.js';
import { seedKeys } from './keys.js';

export interface Booted extends Running {
  dir: string;
  cfg: Config;
  stop(): Promise<void>;
}

/** A server on a fresh data folder; its keys a copy of the run's keyring unless `freshKeys`. */
export async function boot(
  overrides: Partial<Config> = {},
  env: NodeJS.ProcessEnv = {},
  council?: unknown,
  { freshKeys = false }: { freshKeys?: boolean } = {},
): Promise<Booted> {
  const dir = mkdtempSync(join(tmpdir(), 'svc-test-'));
  if (!freshKeys) seedKeys(dir);
  if (council) writeFileSync(join(dir, 'council.json'), JSON.stringify(council));
  const cfg = loadConfig({ SVC_DATA_DIR: dir, PORT: '0', SVC_LOG: '0', SVC_WORKERS: '2', ...env }, overrides);
  const running = await startServer(cfg, { env });
  return {
    ...running,
    dir,
    cfg,
    stop: async () => {
      await running.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export async function call(base: string, path: string, init: RequestInit & { json?: unknown } = {}) {
  const { json, ...rest } = init;
  const res = await fetch(base + path, {
    ...rest,
    ...(json !== undefined
      ? { method: rest.method ?? 'POST', body: JSON.stringify(json), headers: { 'content-type': 'application/json' } }
      : {}),
  });
  const text = await res.text();
  let body: any;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    body = text;
  }
  return { status: res.status, headers: res.headers, body };
}

const compiled = new Map<unknown, ReturnType<typeof Compile>>();
/** Assert a response body against the published TypeBox schema. */
export function expectSchema(schema: any, value: unknown): void {
  let c = compiled.get(schema);
  if (!c) compiled.set(schema, (c = Compile(schema)));
  const ok = c.Check(value);
  expect(ok, JSON.stringify(c.Errors(value)).slice(0, 500)).toBe(true);
}

export { schemas };

/** A loopback port free right now (for a process this test starts, which must know its URL first). */
export async function freePort(): Promise<number> {
  const s = createNetServer();
  await new Promise<void>((ok) => s.listen(0, '127.0.0.1', ok));
  const port = (s.address() as { port: number }).port;
  await new Promise((ok) => s.close(ok));
  return port;
}
