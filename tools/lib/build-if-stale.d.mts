/** Why the build under `dir` is stale (a source newer than it, or an output missing); null when fresh. */
export function staleBecause(dir?: string): string | null;
/** Rebuilds when stale; says why on standard error. */
export function buildIfStale(dir?: string): void;
