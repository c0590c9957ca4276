// The CPU-bound work the pool runs, kept as plain functions so they run the same in a worker
// thread or inline.
import { buildRecord, parseDocument, SvcError, verifyBundle, type ReceiptKey } from '@svc/core';

export interface PoolSettings {
  service: string;
  trustedKeys: ReceiptKey[];
}

export type Task =
  | { op: 'verify'; body: Uint8Array }
  | { op: 'evidence'; body: Uint8Array; org?: string; generated: number };

export type TaskResult = { ok: true; value: unknown } | { ok: false; code: SvcError['code']; message: string };

export async function runTask(task: Task, s: PoolSettings): Promise<TaskResult> {
  try {
    if (task.op === 'verify') return { ok: true, value: await verifyBundle(task.body, { trustedKeys: s.trustedKeys, service: s.service }) };
    const record = buildRecord(parseDocument(task.body), { trustedKeys: s.trustedKeys, service: s.service, generated: task.generated, org: task.org });
    return { ok: true, value: record };
  } catch (e) {
    if (e instanceof SvcError) return { ok: false, code: e.code, message: e.message };
    throw e;
  }
}
