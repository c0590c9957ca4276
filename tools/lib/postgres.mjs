// A throwaway PostgreSQL server for tests and benchmarks: initdb in a temporary folder, started on
// a free port, listening on 127.0.0.1 only, trust authentication, stopped and deleted after. The
// server binaries refuse to run as root, so as root they run as the `postgres` user.
import { execFileSync, spawnSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The folder holding initdb and pg_ctl: $PG_BINDIR, the newest /usr/lib/postgresql/N/bin, Homebrew's, or PATH. */
export function postgresBinDir() {
  if (process.env.PG_BINDIR) return existsSync(join(process.env.PG_BINDIR, 'initdb')) ? process.env.PG_BINDIR : null;
  const base = '/usr/lib/postgresql';
  if (existsSync(base)) {
    const versions = readdirSync(base)
      .filter((v) => existsSync(join(base, v, 'bin', 'initdb')))
      .sort((a, b) => Number(b) - Number(a));
    if (versions.length > 0) return join(base, versions[0], 'bin');
  }
  // Homebrew's keg-only postgresql@N (Apple silicon, then Intel), newest first.
  for (const brew of ['/opt/homebrew/opt', '/usr/local/opt']) {
    if (!existsSync(brew)) continue;
    const kegs = readdirSync(brew)
      .filter((d) => /^postgresql(@\d+)?$/.test(d) && existsSync(join(brew, d, 'bin', 'initdb')))
      .sort((a, b) => Number(b.split('@')[1] ?? 0) - Number(a.split('@')[1] ?? 0));
    if (kegs.length > 0) return join(brew, kegs[0], 'bin');
  }
  const which = spawnSync('sh', ['-c', 'command -v initdb'], { encoding: 'utf8' });
  return which.status === 0 ? join(which.stdout.trim(), '..') : null;
}

function freePort() {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

/** Process ids whose parent is `pid`, from /proc (no procps needed). */
function childrenOf(pid) {
  const out = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      // "pid (comm) state ppid ...": comm may hold spaces and parentheses, so split after the last ')'.
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === pid) out.push(Number(name));
    } catch {
      // the process ended meanwhile
    }
  }
  return out;
}

/**
 * Start a server. `durable: false` (tests) turns fsync off, which changes nothing a test can see
 * short of a power cut; benchmarks keep the defaults.
 */
export async function startPostgres({ durable = false } = {}) {
  const bin = postgresBinDir();
  if (!bin) throw new Error('PostgreSQL server binaries (initdb, pg_ctl) not found: apt-get install -y postgresql');
  const root = process.getuid?.() === 0;
  const dir = mkdtempSync(join(tmpdir(), 'svc-pg-'));
  const data = join(dir, 'data');
  if (root) {
    const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim());
    const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim());
    chownSync(dir, uid, gid);
  }
  const run = (cmd, args) => {
    const [file, argv] = root ? ['runuser', ['-u', 'postgres', '--', join(bin, cmd), ...args]] : [join(bin, cmd), args];
    const r = spawnSync(file, argv, { encoding: 'utf8', cwd: dir });
    if (r.status !== 0) throw new Error(`${cmd} failed (${r.status}): ${r.stderr || r.stdout}`);
  };
  run('initdb', ['-D', data, '-A', 'trust', '-U', 'postgres', '--no-sync', '-E', 'UTF8', '--locale', 'C']);
  const port = await freePort();
  const opts = [`-p ${port}`, `-k ${dir}`, "-c listen_addresses='127.0.0.1'", '-c max_connections=200'];
  if (!durable) opts.push('-c fsync=off', '-c full_page_writes=off');
  run('pg_ctl', ['-D', data, '-l', join(dir, 'log'), '-o', opts.join(' '), '-w', '-t', '60', 'start']);
  const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
  let stopped = false;
  const signalCluster = (signal) => {
    const postmaster = Number(readFileSync(join(data, 'postmaster.pid'), 'utf8').split('\n')[0]);
    for (const pid of [postmaster, ...childrenOf(postmaster)]) {
      try {
        process.kill(pid, signal);
      } catch (e) {
        if (e.code !== 'ESRCH') throw e; // a backend that ended since it was listed
      }
    }
  };
  const start = () => run('pg_ctl', ['-D', data, '-l', join(dir, 'log'), '-o', opts.join(' '), '-w', '-t', '60', 'start']);
  return {
    url,
    port,
    dir,
    /** Stop the server, keeping its data: clients see the database go away. */
    pause() {
      run('pg_ctl', ['-D', data, '-m', 'fast', '-w', 'stop']);
    },
    resume() {
      start();
    },
    /**
     * SIGSTOP the server and every backend: it keeps its sockets open and answers nothing, as a
     * hung machine or a partition looks to a client. `thaw()` undoes it.
     */
    freeze() {
      signalCluster('SIGSTOP');
    },
    thaw() {
      signalCluster('SIGCONT');
    },
    stop() {
      if (stopped) return;
      stopped = true;
      try {
        run('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}

// `node scripts/postgres.mjs`: a throwaway server to try several instances with; prints its URL and
// runs until Ctrl-C, then deletes its data.
if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const pg = await startPostgres({ durable: true });
  console.log(pg.url);
  const stop = () => {
    pg.stop();
    process.exit(0);
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  setInterval(() => {}, 1 << 30);
}
