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

  it('stops at the first level too deep, whatever follows', () => {
    const huge = Buffer.alloc(8 * 1024 * 1024, '[');
    const started = process.cpuUsage();
    expect(nestsDeeperThan(huge, MAX_BODY_DEPTH)).toBe(true);
    const used = process.cpuUsage(started);
    // A complexity guard, not a budget: a scan that went on would take far longer than a second.
    expect(used.user + used.system).toBeLessThan(1_000_000);
  });

  it('scans a 1 MiB body within the limit in linear time', () => {
    const wide = bytes(`{"items":[${Array.from({ length: 60_000 }, (_, i) => `{"a":[${i}]}`).join(',')}]}`);
    const started = process.cpuUsage();
    expect(nestsDeeperThan(wide, MAX_BODY_DEPTH)).toBe(false);
    const used = process.cpuUsage(started);
    // A complexity guard, not a budget: a quadratic scan of 1 MiB would take hours.
    expect(used.user + used.system).toBeLessThan(1_000_000);
  });
});
