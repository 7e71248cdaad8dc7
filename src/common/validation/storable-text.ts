const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/**
 * False for text PostgreSQL cannot hold in jsonb or text: NUL, and unpaired UTF-16 surrogates.
 * Every body is checked with it, static ones by the validation pipe, record fields by their types.
 */
export function storable(text: string): boolean {
  return !text.includes('\u0000') && !LONE_SURROGATE.test(text);
}
