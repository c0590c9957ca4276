// Clean-ups that helpers register while a test or a test file runs (servers to close, folders to
// remove, process groups to kill), run by support/setup.ts after each test and after each file.
// A helper does not register vitest hooks when it is imported: server test files share their
// worker's modules (vitest.config.ts), so a helper module is imported once per worker, and a hook
// it registered would run for the first file only. The setup file runs again for every file.

type Clean = () => Promise<void> | void;
const afterTest: Clean[] = [];
const afterFile: Clean[] = [];

/** Runs `fn` when the running test ends, pass or fail; the last registered runs first. */
export const afterThisTest = (fn: Clean): void => void afterTest.push(fn);
/** Runs `fn` when the running file ends, after the file's own afterAll hooks. */
export const afterThisFile = (fn: Clean): void => void afterFile.push(fn);

async function drain(list: Clean[]): Promise<void> {
  for (const c of list.splice(0).reverse()) await c();
}
export const endOfTest = (): Promise<void> => drain(afterTest);
export const endOfFile = (): Promise<void> => drain(afterFile);
