// Files the build puts beside the code: the worker thread's and the storage process's entry points
// and the verifier page. From the build they sit beside the calling module; run from the sources
// (the tests import src/), they are taken from the package's build folder, which the tests' build
// step makes. One place decides, so no caller falls back to something else silently.
import { existsSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';

/** The built file `name` for the module at `from` (its import.meta.url). */
export function builtFile(name: string, from: string): URL {
  const beside = new URL(`./${name}`, from);
  if (existsSync(fileURLToPath(beside))) return beside;
  const path = fileURLToPath(from);
  const src = path.lastIndexOf('/src/');
  return src < 0 ? beside : pathToFileURL(`${path.slice(0, src)}/dist/${name}`);
}
