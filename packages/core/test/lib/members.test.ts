// I-JSON member names: one reading per document. A repeated name anywhere is refused with its
// JSON Pointer; distinct names never are, however they are escaped, nested or spread.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { duplicateMember } from '../../src/lib/members.js';
import { parseDocument } from '../../src/dispatch.js';
import { parseObject } from '../../src/lib/json.js';
import { SvcError } from '../../src/errors.js';

/** The pointer's tokens (RFC 6901) back to names and indexes. */
const tokens = (ptr: string) =>
  ptr
    .split('/')
    .slice(1)
    .map((t) => t.replaceAll('~1', '/').replaceAll('~0', '~'));

describe('duplicateMember', () => {
  it('finds the repeated name and says where, at any depth', () => {
    expect(duplicateMember('{"a":1,"a":2}')).toBe('/a');
    expect(duplicateMember('{"x":[0,{"b":1,"c":{"d":1,"d":2}}]}')).toBe('/x/1/c/d');
    expect(duplicateMember('{"a/b~":{"k":1,"k":1}}')).toBe('/a~1b~0/k');
    // Names compare unescaped.
    expect(duplicateMember('{"answer":"x","\\u0061nswer":"y"}')).toBe('/answer');
    // Strings that look like structure are skipped whole.
    expect(duplicateMember('{"a":"\\"}{,\\\\","b":"{\\"a\\":1}","c":["a","a"]}')).toBeNull();
    expect(duplicateMember(`${'['.repeat(100_000)}${']'.repeat(100_000)}`)).toBeNull();
  });

  it('property: JSON.stringify never repeats a name; any forged copy of a member is found at its pointer', () => {
    const value = fc.letrec((tie) => ({
      v: fc.oneof({ depthSize: 'small' }, fc.jsonValue({ maxDepth: 1 }), tie('arr'), tie('obj')),
      arr: fc.array(tie('v'), { maxLength: 4 }),
      obj: fc.dictionary(fc.string({ maxLength: 6 }), tie('v'), { maxKeys: 4 }),
    })).obj;
    fc.assert(
      fc.property(value, fc.jsonValue({ maxDepth: 1 }), fc.nat(), (obj, forged, k) => {
        const text = JSON.stringify(obj);
        expect(duplicateMember(text)).toBeNull();
        const names = Object.keys(obj);
        if (names.length === 0) return;
        const name = names[k % names.length]!;
        const dup = `{${JSON.stringify(name)}:${JSON.stringify(forged) ?? 'null'},${text.slice(1)}`;
        const at = duplicateMember(dup);
        expect(at).not.toBeNull();
        expect(tokens(at!)).toEqual([name]);
      }),
      { numRuns: 300 },
    );
  });

  it('parseDocument refuses a repeated name with invalid_json naming the member; parseObject reads it as no object', () => {
    let err: unknown;
    try {
      parseDocument('{"kind":"svc-proof","receipt":{"model":"forged","model":"m"}}');
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(SvcError);
    expect(err).toMatchObject({ code: 'invalid_json', status: 400 });
    expect((err as Error).message).toContain('/receipt/model');
    expect(() => parseDocument(new TextEncoder().encode('{"a":1,"a":1}'))).toThrow(/\/a/);
    expect(parseObject('{"tree_size":1,"tree_size":2}')).toBeNull();
    expect(parseObject('{"tree_size":1}')).toEqual({ tree_size: 1 });
  });
});
