import { storable } from './storable-text';

describe('storable', () => {
  it('accepts any text PostgreSQL holds, paired surrogates (astral characters) included', () => {
    for (const text of ['', 'plain', 'é', '😀', 'a\uD83D\uDE00b'])
      expect({ text, ok: storable(text) }).toEqual({ text, ok: true });
  });

  it('refuses NUL and unpaired surrogates, wherever they are', () => {
    for (const text of ['\u0000', 'a\u0000b', '\uD800', 'a\uD800', '\uDC00a', '\uDE00\uD83D']) {
      expect({ text, ok: storable(text) }).toEqual({ text, ok: false });
    }
  });
});
