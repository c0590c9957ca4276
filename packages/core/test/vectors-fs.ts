// Shared test material, loaded through the bundler so the same tests run in Node and in a browser.
// A missing file fails the import, and every consumer asserts its case count is non-zero.
import rfc6962 from '../../../../shared/vectors/rfc6962.json';
import mldsa from '../../../../shared/vectors/acvp/ml-dsa-87-sigver.json';
import slh from '../../../../shared/vectors/acvp/slh-dsa-sha2-256f-sigver.json';
import es6numbers from '../../../../shared/vectors/jcs/es6testfile-first1000.txt?raw';

const jcsInputs = import.meta.glob('../../../../shared/vectors/jcs/input/*.json', {
  query: '?raw',
  import: 'default',
  eager: true,
}) as Record<string, string>;
const jcsOutputs = import.meta.glob('../../../../shared/vectors/jcs/output/*.json', {
  query: '?raw',
  import: 'default',
  eager: true,
}) as Record<string, string>;
const ourVectors = import.meta.glob('../../../test-vectors/*.json', { import: 'default', eager: true }) as Record<string, unknown>;

const tlogVectors = import.meta.glob('../../../test-vectors/tlog/*.json', { import: 'default', eager: true }) as Record<string, unknown>;

export { rfc6962, mldsa, slh, es6numbers, jcsInputs, jcsOutputs, ourVectors, tlogVectors };
