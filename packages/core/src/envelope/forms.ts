// Inputs handed in the wrong form are a caller's mistake, not a document's: raw COSE_KeySet bytes
// where parsed keys are taken, a JWK Set where its keys array is, base64url text where bytes are.
// Judged as given they would only read "unknown key" or "malformed", a silent false negative; so
// they throw SvcError('invalid_request') naming the call that makes the right form. Documents that
// are bytes or JSON values of any content stay verdicts.
import { SvcError } from '../errors.js';

const wrong = (message: string) => new SvcError('invalid_request', message);

/** Keys given as an array (COSE_Keys as Maps, or JWKs); throws on the forms a caller may mistake for one. */
export function keyArray(keys: unknown, what: string): readonly unknown[] {
  if (Array.isArray(keys)) return keys;
  if (keys instanceof Uint8Array)
    throw wrong(`${what} are bytes: read a COSE_KeySet with readCoseKeySet(bytes) (from @svc/core/envelope) and pass its keys`);
  if (typeof keys === 'string')
    throw wrong(`${what} are text: parse a JWK Set with JSON.parse(text).keys, or read a COSE_KeySet's bytes with readCoseKeySet`);
  if (typeof keys === 'object' && keys !== null && Array.isArray((keys as { keys?: unknown }).keys))
    throw wrong(`${what} is a JWK Set: pass its keys array (set.keys)`);
  throw wrong(`${what} must be an array of keys (COSE_Keys from readCoseKeySet, or JWKs)`);
}

/** A JWK Set object; throws on its bytes or text, which the caller meant to parse. */
export function jwkSet(keys: unknown): void {
  if (keys instanceof Uint8Array) throw wrong('the JWK Set is bytes: parse it with JSON.parse(new TextDecoder().decode(bytes))');
  if (typeof keys === 'string') throw wrong('the JWK Set is text: parse it with JSON.parse(text)');
  if (Array.isArray(keys)) throw wrong('the JWK Set is an array: pass {keys: [...]}');
}

/** COSE bytes; throws on the base64url text a bundle carries them as. */
export function coseBytes(doc: unknown, what: string): void {
  if (typeof doc === 'string') throw wrong(`${what} is text: decode the base64url a bundle carries with fromBase64Url(text) first`);
}
