import { MAX_BODY_DEPTH, nestsDeeperThan } from './json-body';

const bytes = (text: string) => Buffer.from(text, 'utf8');

describe('nestsDeeperThan (the body parser depth limit)', () => {
  it.each([
    ['a flat object', '{"a":1,"b":[1,2],"c":{}}', 2, false],
    ['an object at the limit', '{"a":{"b":[[]]}}', 4, false],
    ['an object one level over', '{"a":{"b":[[]]}}', 3, true],
    ['siblings, each within the limit', '{"a":[[1]],"b":[[2]],"c":{"d":{}}}', 3, false],
    ['brackets inside a string', '{"a":"[[[[{{{{"}', 1, false],
    ['an escaped quote before brackets', '{"a":"\\"[[[["}', 1, false],
    ['an escaped backslash before the closing quote', '{"a":"\\\\","b":[[1]]}', 2, true],
    ['multi-byte text around brackets', '{"é😀":"[«»]","b":["ü"]}', 2, false],
  ])('reads %s', (_case, json, max, expected) => {
    expect(nestsDeeperThan(bytes(json), max)).toBe(expected);
  });

  /** `bytes`, counting every index read from them. */
  function counted(bytes: Buffer): { bytes: Uint8Array; reads: () => number } {
    let reads = 0;
    const proxy = new Proxy(bytes, {
      get(target, property) {
        if (typeof property === 'string' && /^\d+$/.test(property)) reads++;
        return Reflect.get(target, property) as unknown;
      },
    });
    return { bytes: proxy, reads: () => reads };
  }

  it('stops at the first level too deep, whatever follows', () => {
    const huge = counted(Buffer.alloc(1024 * 1024, '['));
    expect(nestsDeeperThan(huge.bytes, MAX_BODY_DEPTH)).toBe(true);
    expect(huge.reads()).toBe(MAX_BODY_DEPTH + 1);
  });

  it('reads each byte of a body within the limit once', () => {
    const text = `{"items":[${Array.from({ length: 5_000 }, (_, i) => `{"a":[${i}],"s":"[\\"]"}`).join(',')}]}`;
    const wide = counted(bytes(text));
    expect(nestsDeeperThan(wide.bytes, MAX_BODY_DEPTH)).toBe(false);
    // An escape skips the byte it escapes: never more reads than bytes.
    expect(wide.reads()).toBeLessThanOrEqual(text.length);
    expect(wide.reads()).toBeGreaterThan(text.length * 0.9);
  });
});
