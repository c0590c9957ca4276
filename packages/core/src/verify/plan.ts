// Signature checks answered later: verification is synchronous code, so with an asynchronous
// backend a pass runs with this plan standing in for the backend. Each call is matched by its
// position in the pass and its exact inputs; a call not yet computed is queued and answered
// "valid" for now. The queue is computed as one batch. When every real answer is "valid", the pass
// saw exactly the real answers and its verdict is the true one: a genuine document takes one pass
// and one batch. Otherwise the next pass reads the real answers, and the verdict of the first pass
// whose every call had a real answer, or whose placeholders all held, is the true one (each pass
// answers at least one more call, so the number of passes is bounded by the number of checks).
import { bytesEqual } from '../encoding/bytes.js';
import type { SyncVerify } from '../crypto/algorithms.js';
import { backendFor, type BackendAlgorithm, type CryptoBackend } from '../crypto/backend.js';

interface Call {
  alg: BackendAlgorithm;
  pk: Uint8Array;
  msg: Uint8Array;
  sig: Uint8Array;
  ctx: Uint8Array;
  result?: boolean;
  /** The placeholder this pass gave for it (always true: "valid"). */
  given?: boolean;
}

export class CallPlan {
  private readonly calls: Call[] = [];
  private pos = 0;

  constructor(private readonly backend: CryptoBackend) {}

  readonly compute: SyncVerify = (alg, pk, msg, sig, ctx) => {
    const b = backendFor(this.backend, alg);
    // What falls back to a synchronous backend is computed at once.
    if (b.sync) return b.verify(alg, pk, msg, sig, ctx) === true;
    const i = this.pos++;
    const c = this.calls[i];
    if (
      c &&
      c.result !== undefined &&
      c.alg === alg &&
      bytesEqual(c.sig, sig) &&
      bytesEqual(c.msg, msg) &&
      bytesEqual(c.pk, pk) &&
      bytesEqual(c.ctx, ctx)
    )
      return c.result;
    // A new call, or the pass took another path from here: what followed no longer applies.
    this.calls.length = i;
    this.calls.push({ alg, pk, msg, sig, ctx, given: true });
    return true;
  };

  /** After settle: whether every placeholder of the last pass was the real answer. */
  placeholdersHeld(): boolean {
    return this.calls.every((c) => c.given === undefined || c.given === c.result);
  }

  unresolved(): boolean {
    return this.calls.some((c) => c.result === undefined);
  }

  async settle(): Promise<void> {
    await Promise.all(
      this.calls
        .filter((c) => c.result === undefined)
        .map(async (c) => {
          try {
            c.result = (await backendFor(this.backend, c.alg).verify(c.alg, c.pk, c.msg, c.sig, c.ctx)) === true;
          } catch {
            c.result = false;
          }
        }),
    );
    this.pos = 0;
  }

  /** Start another pass: placeholders given in the last one are forgotten, answers kept. */
  nextPass(): void {
    for (const c of this.calls) c.given = undefined;
    this.pos = 0;
  }
}
