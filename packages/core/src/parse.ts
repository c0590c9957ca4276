// Reading a posted document: size, UTF-8 and I-JSON are checked here, once, for every entry point
// (verifyBundle, buildRecord, the server, the CLI and the page).
import { SvcError } from './errors.js';
import { fromUtf8, utf8 } from './encoding/bytes.js';
import { ijsonViolation } from './lib/members.js';
import { MAX_BODY_BYTES } from './limits.js';
export { MAX_BODY_BYTES };

/**
 * Parse a posted document. Strings and bytes are JSON text (size-checked); anything else is taken
 * as an already parsed JSON value.
 *
 * @example
 * ```ts
 * parseDocument('{"kind":"svc-proof"}'); // { kind: 'svc-proof' }
 * parseDocument('{"a":1,"a":2}'); // throws SvcError invalid_json: duplicate member
 * ```
 */
export function parseDocument(input: unknown): unknown {
  if (typeof input !== 'string' && !(input instanceof Uint8Array)) return input;
  let text: string;
  if (input instanceof Uint8Array) {
    if (input.length > MAX_BODY_BYTES) throw new SvcError('too_large', 'payload over 2 MB');
    try {
      text = fromUtf8(input);
    } catch {
      throw new SvcError('invalid_json', 'body is not valid UTF-8');
    }
  } else {
    // UTF-8 length without allocating: at most 3 bytes per UTF-16 unit.
    if (input.length * 3 > MAX_BODY_BYTES && utf8(input).length > MAX_BODY_BYTES) {
      throw new SvcError('too_large', 'payload over 2 MB');
    }
    text = input;
  }
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch {
    throw new SvcError('invalid_json', 'body is not valid JSON');
  }
  const v = ijsonViolation(text);
  if (v?.kind === 'repeated') throw new SvcError('invalid_json', `body is not I-JSON: member name repeated at ${v.at}`);
  if (v) throw new SvcError('invalid_json', `body is not I-JSON: the number at ${v.at || '/'} is not exactly a double (IEEE 754)`);
  return doc;
}
