// Signature checks computed as one batch by an asynchronous backend. Verification is synchronous
// code, so it runs in two passes over the same document: a collecting pass answers every check
// "valid" and records it, the backend computes the recorded checks at once, and a folding pass
// reads each real answer by the check's exact inputs (never by its position).
//
// This rests on one property of the verifiers: a check that fails never leads to another check (a
// failure only skips what follows it), so the collecting pass, where nothing fails, meets every
// check a folding pass can ask for. The property is tested over every vector and fuzzed documents;
// were it ever broken, the folding pass computes the missing check synchronously rather than guess.
// When every answer is "valid", the collecting pass already was the folding pass: its verdict stands
// and a genuine document is verified in one pass and one batch.
import { bytesEqual } from '../encoding/bytes.js';
import type { SyncVerify } from '../crypto/algorithms.js';
import { backendFor, nobleBackend, type BackendAlgorithm, type CryptoBackend } from '../crypto/backend.js';

interface Check {
  alg: BackendAlgorithm;
  pk: Uint8Array;
  msg: Uint8Array;
  sig: Uint8Array;
  ctx: Uint8Array;
  /** The real answer: set at once for what a synchronous backend computes, else by `answer()`. */
  result?: boolean;
}

function same(c: Check, alg: BackendAlgorithm, pk: Uint8Array, msg: Uint8Array, sig: Uint8Array, ctx: Uint8Array): boolean {
  return c.alg === alg && bytesEqual(c.sig, sig) && bytesEqual(c.msg, msg) && bytesEqual(c.pk, pk) && bytesEqual(c.ctx, ctx);
}

export class CheckBatch {
  private readonly checks: Check[] = [];
  /** Checks the folding pass asked for that the collecting pass had not met (0 while the property holds). */
  misses = 0;
  /** Where the folding pass's search resumes. */
  private cursor = 0;

  constructor(private readonly backend: CryptoBackend) {}

  /** The collecting pass: records each check and answers it "valid" until the batch is computed. */
  readonly collect: SyncVerify = (alg, pk, msg, sig, ctx) => {
    const b = backendFor(this.backend, alg);
    const check: Check = { alg, pk, msg, sig, ctx };
    // What falls back to a synchronous backend is computed once, here, and kept for the fold.
    if (b.sync) check.result = b.verify(alg, pk, msg, sig, ctx) === true;
    this.checks.push(check);
    return check.result ?? true;
  };

  /** Whether the collecting pass met a check the backend must still compute. */
  pending(): boolean {
    return this.checks.some((c) => c.result === undefined);
  }

  /** Compute every pending check as one batch; a backend that throws answers "invalid". */
  async answer(): Promise<void> {
    await Promise.all(
      this.checks
        .filter((c) => c.result === undefined)
        .map(async (c) => {
          try {
            c.result = (await backendFor(this.backend, c.alg).verify(c.alg, c.pk, c.msg, c.sig, c.ctx)) === true;
          } catch {
            c.result = false;
          }
        }),
    );
  }

  /** After `answer()`: whether every check holds, so the collecting pass's verdict is the true one. */
  allValid(): boolean {
    return this.checks.every((c) => c.result === true);
  }

  /**
   * The folding pass: each check's real answer, found by its exact inputs. The pass is the same
   * deterministic code as the collecting one, where a failure only skips checks, so its checks come
   * in collecting order with gaps: the search resumes after the last match instead of rescanning
   * (a forged 200-turn transcript would otherwise compare every signature with every other).
   */
  readonly fold: SyncVerify = (alg, pk, msg, sig, ctx) => {
    for (let i = this.cursor; i < this.checks.length; i++) {
      const c = this.checks[i]!;
      if (c.result !== undefined && same(c, alg, pk, msg, sig, ctx)) {
        this.cursor = i + 1;
        return c.result;
      }
    }
    this.misses++;
    const b = backendFor(this.backend, alg);
    return (b.sync ? b : nobleBackend).verify(alg, pk, msg, sig, ctx) === true;
  };
}
