// Where the test suite's time goes (#42): every vitest run writes each file's time to
// test-timings.json at the repository root (git-ignored) and prints the slowest ten, so a file
// that grows slow is seen in the run that made it so, not guessed at later.
import { writeFileSync } from 'node:fs';
import { availableParallelism, cpus } from 'node:os';
import { join, relative } from 'node:path';
import { root } from './root.mjs';

const sec = (ms) => Math.round(ms / 100) / 10;

export default class TimingReporter {
  onTestRunStart() {
    this.started = performance.now();
  }

  onTestRunEnd(modules) {
    const files = modules
      .map((m) => {
        const d = m.diagnostic();
        return {
          file: relative(root, m.moduleId),
          project: m.project.name,
          state: m.state(),
          // Importing the file and its modules, then its tests and hooks: what a worker spent on it.
          seconds: sec(d.environmentSetupDuration + d.prepareDuration + d.collectDuration + d.setupDuration + d.duration),
          tests: sec(d.duration),
          import: sec(d.collectDuration),
        };
      })
      .sort((a, b) => b.seconds - a.seconds);
    const wall = sec(performance.now() - (this.started ?? performance.now()));
    const report = {
      at: new Date().toISOString(),
      node: process.version,
      cpu: `${cpus()[0]?.model ?? '?'} x${availableParallelism()}`,
      wallSeconds: wall,
      fileSeconds: sec(files.reduce((a, f) => a + f.seconds * 1000, 0)),
      files,
    };
    // The main run (several projects) writes test-timings.json; a run of one project (the native
    // one under Node 24, a file run alone) writes its own, never over the main run's.
    const projects = [...new Set(files.map((f) => f.project))];
    const name =
      projects.length === 1 ? `test-timings.${projects[0].replace(/[^\w.-]+/g, '-').replace(/-+$/, '')}.json` : 'test-timings.json';
    writeFileSync(join(root, name), `${JSON.stringify(report, null, 1)}\n`);
    const top = files.slice(0, 10).map((f) => `  ${String(f.seconds).padStart(6)} s  ${f.file}`);
    process.stdout.write(
      `\nTest timings (${name}): ${files.length} files, ${report.fileSeconds} s of file time in ${wall} s; the slowest:\n${top.join('\n')}\n`,
    );
  }
}
