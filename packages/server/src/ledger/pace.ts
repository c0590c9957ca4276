// How the background full check keeps to its share of a core (SVC_LEDGER_CHECK_SHARE). After each
// slice of work it rests long enough that the slice's CPU is at most `share` of the slice and the
// rest together. The slice's CPU is the whole process's over the slice: the SQLite store's thread
// reads inside it. That alone left the check at 0.131 of a core at a share of 0.1, because V8's
// threads collect a slice's garbage after the slice has ended. So the CPU the process spends during
// a rest is charged to the slice before it as well, up to TAIL of that slice's own: a busy server's
// requests, served during the rests, can slow the check by at most that much, never starve it.

/** A moment: the wall clock and the process's CPU time, both in ms. */
export type Mark = { wall: number; cpu: number };
const processMark = (): Mark => {
  const used = process.cpuUsage();
  return { wall: performance.now(), cpu: (used.user + used.system) / 1000 };
};
// Unref'd: a background check never keeps a process alive by itself (an issuer's script may end).
const sleep = (ms: number): Promise<void> => new Promise((resolve) => (ms > 0 ? setTimeout(resolve, ms).unref() : setImmediate(resolve)));

/** The most a rest's CPU adds to the slice before it, as a fraction of that slice's own CPU. */
export const TAIL = 0.5;

/** How long to rest after a slice that took `cpuMs` of CPU in `wallMs`, for the whole to be `share` of a core. */
export function restMs(cpuMs: number, wallMs: number, share: number): number {
  return share >= 1 ? 0 : Math.max(0, cpuMs / share - wallMs);
}

/** The CPU charged to a slice for the rest after it: what the process spent meanwhile, at most TAIL of the slice's. */
export function tailMs(sliceCpuMs: number, restCpuMs: number): number {
  return Math.max(0, Math.min(restCpuMs, sliceCpuMs * TAIL));
}

/** Paces one run of slices: call `slice()` before each slice of work and `rest()` after it. */
export class Pacer {
  private began: Mark | null = null;
  private resting: Mark | null = null;
  private lastCpu = 0;
  /** CPU charged for the last rest, rested for after the next slice. */
  private owed = 0;

  constructor(
    private readonly share: number,
    private readonly now: () => Mark = processMark,
    private readonly wait: (ms: number) => Promise<void> = sleep,
  ) {}

  slice(): void {
    if (this.resting) this.owed = tailMs(this.lastCpu, this.now().cpu - this.resting.cpu);
    this.resting = null;
    this.began = this.now();
  }

  rest(): Promise<void> {
    const t = this.now();
    const began = this.began ?? t;
    this.lastCpu = t.cpu - began.cpu;
    const ms = restMs(this.lastCpu + this.owed, t.wall - began.wall, this.share);
    this.owed = 0;
    this.resting = t;
    return this.wait(ms);
  }
}
