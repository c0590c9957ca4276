// One real PostgreSQL server for the server test project, started here and stopped after the run.
// Each test that needs a database makes its own (test/backends.ts), so files never share state.
import type { TestProject } from 'vitest/node';
import { startPostgres } from '@svc/tools/postgres';
import { runs } from '@svc/tools/system';

declare module 'vitest' {
  export interface ProvidedContext {
    pgUrl: string;
  }
}

export default async function setup(project: TestProject) {
  // Without PostgreSQL's binaries outside CI, the suites that need it are skipped (BACKENDS, runs()).
  if (!runs('postgres')) {
    project.provide('pgUrl', '');
    return () => {};
  }
  const pg = await startPostgres();
  project.provide('pgUrl', pg.url);
  return () => pg.stop();
}
