// What Linux's /proc says of a process tree: who is below whom, and how much memory each holds.
import { readdirSync, readFileSync } from 'node:fs';

/** Resident memory of a process in MiB (Linux /proc), or null when it is gone. */
export function rssMiB(pid: number): number | null {
  try {
    const kb = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    return kb ? Number(kb) / 1024 : null;
  } catch {
    return null;
  }
}

/** Every process below `root`, with its command line. */
export function descendants(root: number): { pid: number; cmd: string }[] {
  const parent = new Map<number, number>();
  const cmd = new Map<number, string>();
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const stat = readFileSync(`/proc/${d}/stat`, 'utf8');
      parent.set(Number(d), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
      cmd.set(Number(d), readFileSync(`/proc/${d}/cmdline`, 'utf8').replace(/\0/g, ' '));
    } catch {
      // gone meanwhile
    }
  }
  const out: { pid: number; cmd: string }[] = [];
  const walk = (p: number): void => {
    for (const [c, pp] of parent)
      if (pp === p) {
        out.push({ pid: c, cmd: cmd.get(c) ?? '' });
        walk(c);
      }
  };
  walk(root);
  return out;
}
