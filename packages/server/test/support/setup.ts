// Runs before every server test file (vitest.config.ts setupFiles), so its hooks are the file's
// own even where the file shares its worker's modules with the files before it.
import { afterAll, afterEach } from 'vitest';
import { endOfFile, endOfTest } from './lifecycle.js';

afterEach(endOfTest);
afterAll(endOfFile);
