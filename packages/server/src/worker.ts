// Worker-thread entry: runs verification tasks off the event loop. Replies carry JSON text only.
import { parentPort, workerData } from 'node:worker_threads';
import { runTask, type PoolSettings, type Task } from './verify/tasks.js';

const settings = workerData as PoolSettings;

parentPort!.on('message', async (msg: { id: number; task: Task }) => {
  try {
    parentPort!.postMessage({ id: msg.id, result: await runTask(msg.task, settings) });
  } catch (e) {
    parentPort!.postMessage({ id: msg.id, crash: e instanceof Error ? e.message : String(e) });
  }
});
