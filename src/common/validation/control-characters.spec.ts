import { hasControlCharacter } from './control-characters';

const hex = (text: string) =>
  [...text].map((character) => `U+${character.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`).join(' ');

describe('hasControlCharacter', () => {
  it('finds C0, DEL and C1 (U+0000–U+001F, U+007F–U+009F), anywhere in the text', () => {
    const controls = [...Array(0x20).keys(), ...Array.from({ length: 0x21 }, (_, offset) => 0x7f + offset)].map(
      (code) => String.fromCodePoint(code),
    );
    expect(controls).toHaveLength(65);
    const missed = controls
      .flatMap((control) => [control, `a${control}`, `a${control}b.txt`])
      .filter((text) => !hasControlCharacter(text));
    expect(missed.map(hex)).toEqual([]);
  });

  it('finds none in printable text, whatever its script, spaces and format characters included', () => {
    const found = [
      '',
      'call.vtt',
      ' ',
      '~',
      '\u00a0',
      '\u00ad',
      'é',
      'Résumé "final".vtt',
      '日本.txt',
      '😀',
      '\u200b',
      '\u2028',
      '\ufeff',
    ].filter(hasControlCharacter);
    expect(found.map(hex)).toEqual([]);
  });
});
