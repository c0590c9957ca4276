// A process and everything it started, read from /proc: its direct children, and the resident
// memory of the whole tree (a server's primary, its server processes, their storage processes).
import { readdirSync, readFileSync } from 'node:fs';

const status = (pid) => {
  try {
    return readFileSync(`/proc/${pid}/status`, 'utf8');
  } catch {
    return '';
  }
};

/** `{ children, mb }`: the pids whose parent is `root`, and the RSS in MiB of `root` and its descendants (NaN when none is left). */
export function processTree(root) {
  const parents = new Map();
  for (const d of readdirSync('/proc')) if (/^\d+$/.test(d)) parents.set(Number(d), Number(/PPid:\s+(\d+)/.exec(status(d))?.[1] ?? 0));
  const inTree = (pid) => {
    for (let p = pid, n = 0; p > 1 && n < 64; p = parents.get(p) ?? 0, n++) if (p === root) return true;
    return false;
  };
  let kb = 0;
  for (const pid of parents.keys()) if (inTree(pid)) kb += Number(/VmRSS:\s+(\d+)/.exec(status(pid))?.[1] ?? 0);
  return { children: [...parents].filter(([, pp]) => pp === root).map(([p]) => p), mb: kb > 0 ? kb / 1024 : Number.NaN };
}
