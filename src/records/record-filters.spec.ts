import { prefixUpperBound } from './record-filters';

describe('prefixUpperBound (the index range of a startsWith filter)', () => {
  it.each([
    ['abc', 'abd'],
    ['Note 123', 'Note 124'],
    ['zoë', 'zoì'],
    ['🎉', '🎊'],
    // Raised past the surrogates, which are not characters and have no UTF-8 bytes.
    ['a\uD7FF', 'a\uE000'],
    // The last code point there is cannot be raised: the one before it is.
    ['ab\u{10FFFF}', 'ac'],
    ['b\u{10FFFF}\u{10FFFF}', 'c'],
  ])('%j: every string starting with it is below %j', (prefix, upper) => {
    expect(prefixUpperBound(prefix)).toBe(upper);
  });

  it.each(['', '\u{10FFFF}', '\u{10FFFF}\u{10FFFF}'])('%j: no string is above them all', (prefix) => {
    expect(prefixUpperBound(prefix)).toBeUndefined();
  });

  it('is above the longest and highest strings with the prefix, in code point order', () => {
    const upper = prefixUpperBound('pre')!;
    for (const candidate of ['pre', 'pre\u{10FFFF}\u{10FFFF}', `pre${'z'.repeat(600)}`]) {
      expect(Buffer.compare(Buffer.from(candidate), Buffer.from(upper))).toBe(-1);
    }
  });
});
