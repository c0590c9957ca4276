// Worker-thread entry: runs verification tasks off the event loop. Replies carry JSON text only.
import { parentPort, workerData } from 'node:worker_threads';
import { nobleBackend } from '@svc/core';
import { nodeCryptoBackend } from './crypto/node.js';
import { runTask, type PoolSettings, type Task } from './pool/tasks.js';

const settings = workerData as PoolSettings;
// Each thread imports its own native keys: KeyObjects do not cross threads.
const crypto = nodeCryptoBackend() ?? nobleBackend;

parentPort!.on('message', async (msg: { id: number; task: Task }) => {
  try {
    parentPort!.postMessage({ id: msg.id, result: await runTask(msg.task, settings, crypto) });
  } catch (e) {
    parentPort!.postMessage({ id: msg.id, crash: e instanceof Error ? e.message : String(e) });
  }
});
// Loaded: the pool counts this worker as ready (a task sent earlier waited in the port meanwhile).
parentPort!.postMessage({ ready: true });
