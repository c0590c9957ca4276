// The repository root, for tools that read or run what lies outside tools/ (one place, so a tool
// can move without its paths changing meaning).
import { fileURLToPath } from 'node:url';

export const root = fileURLToPath(new URL('../../', import.meta.url));
