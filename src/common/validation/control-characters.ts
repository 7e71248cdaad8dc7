import { ValidateBy } from 'class-validator';

/**
 * A control character: Unicode's category Cc, that is C0 (U+0000–U+001F), DEL (U+007F) and C1
 * (U+0080–U+009F, where U+009B alone starts a terminal escape sequence). The one definition for
 * every text the service refuses them in; texts that take line breaks and tabs (a note's content)
 * do not refuse them.
 */
const CONTROL_CHARACTER = /\p{Cc}/u;

export function hasControlCharacter(text: string): boolean {
  return CONTROL_CHARACTER.test(text);
}

/** A string member without control characters: 422 `invalid_value` otherwise. */
export function WithoutControlCharacters(): PropertyDecorator {
  return ValidateBy({
    name: 'withoutControlCharacters',
    validator: {
      validate: (value: unknown) => typeof value === 'string' && !hasControlCharacter(value),
      defaultMessage: () => '$property must not contain control characters (U+0000–U+001F, U+007F–U+009F)',
    },
  });
}
